import { fanOutIsolated } from '../../src/deliveries/fan-out';
import { metricsRegistry } from '../../src/metrics/metrics';
import { insertEvent } from '../support/factories';
import { createTestContainer, type TestContainer } from '../support/test-env';
import { createScene, type Scene, sql } from './harness';

/**
 * docs/internals/delivery.md "One event cannot stop the others": an outbox batch whose statement fails on
 * one event's data is fanned out event by event; an event that fails alone gets a degraded
 * search row, or, failing even so, is quarantined with its reason. Everyone else flows on.
 */
describe('outbox fan-out: one event cannot stop the others', () => {
  let t: TestContainer;
  let a: Scene;
  let b: Scene;
  const knex = () => t.container.orm.em.getConnection().getKnex();
  const quarantinedTotal = async () => {
    const metric = (await metricsRegistry.getMetricsAsJSON()).find((m) => m.name === 'relay_events_quarantined_total');
    return (metric?.values ?? []).reduce((sum, v) => sum + Number(v.value), 0);
  };

  beforeAll(async () => {
    t = await createTestContainer();
    a = await createScene(t.container);
    b = await createScene(t.container);
    await a.destination('http://127.0.0.1:9/a');
    await b.destination('http://127.0.0.1:9/b');
    // Fault injection for what nothing in a payload triggers today: a search-row write that fails for listed events, with their SQLSTATE.
    await knex().raw(`create table test_poison (event_id uuid primary key, sqlstate text not null)`);
    await knex().raw(`create function test_poison() returns trigger language plpgsql as $$
      declare code text;
      begin
        select sqlstate into code from test_poison where event_id = new.event_id;
        if code is not null then raise exception 'injected failure for %', new.event_id using errcode = code; end if;
        return new;
      end $$`);
    await knex().raw(`create trigger test_poison before insert on event_search for each row execute function test_poison()`);
  });
  afterAll(() => t?.close());

  const state = async (ids: string[]) =>
    Object.fromEntries(
      (
        await sql<{ id: string; dispatched: boolean; quarantine_reason: string | null; deliveries: number; searchable: string }>(
          t.container,
          `select e.id, e.dispatched_at is not null as dispatched, e.quarantine_reason, (select count(*)::int from deliveries d where d.event_id = e.id) as deliveries,
                  case when s.event_id is null then 'none' when s.doc is null then 'words' else 'full' end as searchable
             from events e left join event_search s on s.event_id = e.id where e.id = any(?::uuid[])`,
          [`{${ids.join(',')}}`],
        )
      ).map((r) => [r.id, { dispatched: r.dispatched, quarantined: r.quarantine_reason, deliveries: r.deliveries, searchable: r.searchable }]),
    );

  it('fans out the rest of a batch that fails on its data; degrades search for what overflows it; quarantines what fails alone', async () => {
    // About 1.2 MB of distinct words.
    const words = Array.from({ length: 200_000 }, (_, n) => `w${n.toString(36).padStart(5, '0')}`);
    const ids = {
      before: await insertEvent(t.container, a.endpoint, { payload: { n: 1 } }),
      // Stored before ingress refused such depth: jsonb conversion overflows PostgreSQL's stack (SQLSTATE 54001).
      deep: await insertEvent(t.container, a.endpoint, { payloadText: '['.repeat(20_000) + ']'.repeat(20_000) }),
      // Valid JSON that numeric cannot hold (22003).
      hugeNumber: await insertEvent(t.container, a.endpoint, { payloadText: '{"n":1e1000000}' }),
      // Words that pass a tsvector's 1 MiB (54000).
      manyWords: await insertEvent(t.container, b.endpoint, { payloadText: JSON.stringify(words.join(' ')) }),
      poisoned: await insertEvent(t.container, b.endpoint, { payload: { n: 'poisoned' } }),
      otherTenant: await insertEvent(t.container, b.endpoint, { payload: { n: 2 } }),
    };
    await knex().raw(`insert into test_poison values (?, '22023')`, [ids.poisoned]);
    const quarantinedBefore = await quarantinedTotal();

    let passes = 0;
    while ((await fanOutIsolated(knex(), 500, t.container.log)) > 0) passes++;
    expect(passes).toBeGreaterThan(0);

    const got = await state(Object.values(ids));
    const of = (id: string) => got[id];
    expect(of(ids.before)).toEqual({ dispatched: true, quarantined: null, deliveries: 1, searchable: 'full' });
    expect(of(ids.otherTenant)).toEqual({ dispatched: true, quarantined: null, deliveries: 1, searchable: 'full' });
    for (const degraded of [ids.deep, ids.hugeNumber, ids.manyWords]) {
      expect(of(degraded)).toEqual({ dispatched: true, quarantined: null, deliveries: 1, searchable: 'words' });
    }
    expect(of(ids.poisoned)).toEqual({ dispatched: true, quarantined: expect.stringMatching(/injected failure.*\(SQLSTATE 22023\)$/), deliveries: 0, searchable: 'none' });
    expect(await quarantinedTotal()).toBe(quarantinedBefore + 1);
    // Nothing is left in the outbox.
    expect(await sql(t.container, 'select id from events where dispatched_at is null')).toEqual([]);
  });

  it('a failure that says nothing about one event (not a data error) fails the pass and quarantines nothing', async () => {
    const blocked = await insertEvent(t.container, a.endpoint, { payload: { n: 'deadlock' } });
    const fine = await insertEvent(t.container, b.endpoint, { payload: { n: 3 } });
    await knex().raw(`insert into test_poison values (?, '40P01')`, [blocked]);
    await expect(fanOutIsolated(knex(), 500, t.container.log)).rejects.toMatchObject({ code: '40P01' });
    expect(await state([blocked, fine])).toEqual({
      [blocked]: { dispatched: false, quarantined: null, deliveries: 0, searchable: 'none' },
      [fine]: { dispatched: false, quarantined: null, deliveries: 0, searchable: 'none' },
    });
    // Once the cause is gone, both flow.
    await knex().raw('delete from test_poison where event_id = ?', [blocked]);
    expect(await fanOutIsolated(knex(), 500, t.container.log)).toBe(2);
  });
});
