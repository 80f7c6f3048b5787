import type { AppContainer } from '../../src/app/container';
import type { WebhookEndpoint } from '../../src/endpoints/endpoint.entity';
import { updateIssue } from '../../src/issues/issue.service';
import { LEARNER_DEFAULTS, type LearnerOptions, learnSchemas } from '../../src/schemas/schema-learner';
import { checkSilence } from '../../src/schemas/silence-check';
import { sql } from '../delivery/harness';
import { createEndpoint, createWorkspace, insertEvent, type Workspace } from '../support/factories';
import { createTestContainer, type TestContainer } from '../support/test-env';
import { clone, CORPUS, CORPUS_TYPES, examplesOf } from './corpus';

/**
 * The learner and the silence check on the real PostgreSQL, pass by pass (the worker runs them in a
 * loop: test/schemas/schema-drift.e2e.test.ts): a real provider's corpus is learned without an alert;
 * a removed, a retyped path and a new event type each alert once; additions are recorded only;
 * acknowledging makes the new shape the expected one; limits bound the work and the storage; two
 * passes at once count each event once; a source past its expected interval is silent once, and
 * resumes with its next event.
 */

interface Occurrence {
  type: string;
  coalesce_key: string;
  data: Record<string, any>;
}

describe('schema learner and silence check (real PostgreSQL)', () => {
  let t: TestContainer;
  let container: AppContainer;
  let ws: Workspace;
  // No lag: these tests insert, then learn.
  const options: LearnerOptions = { ...LEARNER_DEFAULTS, lagMs: -1000, warmupEvents: 20, warmupSeconds: 3600 };
  const learnAll = async (opts: Partial<LearnerOptions> = {}) => {
    let total = 0;
    for (;;) {
      const pass = await learnSchemas(container.orm.em.getConnection().getKnex(), { ...options, ...opts });
      total += pass.events;
      if (!pass.more) return total;
    }
  };
  const occurrences = () => sql<Occurrence>(container, 'select type, coalesce_key, data from operational_occurrences order by id');
  const clearOccurrences = () => sql(container, 'delete from operational_occurrences');

  async function source(fields: Partial<WebhookEndpoint> = {}): Promise<WebhookEndpoint> {
    return (await createEndpoint(container, container.orm.em.fork(), ws.project, fields)).endpoint;
  }

  /** Makes the source's learning window (RELAY_SCHEMA_WARMUP_SECONDS) lie in the past. */
  const age = (endpoint: WebhookEndpoint) => sql(container, `update source_activity set first_event_at = now() - interval '2 hours' where endpoint_id = ?`, [endpoint.id]);

  beforeAll(async () => {
    t = await createTestContainer();
    container = t.container;
    ws = await createWorkspace(container.orm.em.fork());
  });

  afterAll(async () => {
    await t?.close();
  });

  beforeEach(clearOccurrences);

  it('learns a corpus of real payloads (58 event types) without an alert, then alerts once per change with the right paths', async () => {
    const codehost = await source({ name: 'Codehost A', provider: 'codehost_a' });
    for (const e of CORPUS) await insertEvent(container, codehost, { eventType: e.type, payload: e.payload });
    expect(await learnAll()).toBe(CORPUS.length);

    const schemas = await sql<{ event_type: string; event_count: string; learned_count: string; path_count: number }>(
      container,
      'select event_type, event_count, learned_count, path_count from event_schemas where endpoint_id = ? order by event_type',
      [codehost.id],
    );
    expect(schemas.map((s) => s.event_type)).toEqual([...CORPUS_TYPES].sort());
    expect(schemas.find((s) => s.event_type === 'issues')).toMatchObject({ event_count: '29', learned_count: '29' });
    // Additions after the warm-up (three of them in this corpus) are recorded, and alert nobody.
    const history = await sql<{ kind: string; alerted: boolean; removed: string[]; retyped: unknown[] }>(container, 'select kind, alerted, removed, retyped from schema_changes where endpoint_id = ?', [codehost.id]);
    expect(history.every((c) => c.kind === 'changed' && !c.alerted && c.removed.length === 0 && c.retyped.length === 0)).toBe(true);
    expect(await sql(container, 'select 1 from issues where endpoint_id = ?', [codehost.id])).toEqual([]);
    expect(await occurrences()).toEqual([]);

    // A removed path (present in all 29 issues events).
    const removed = clone(examplesOf('issues')[0]);
    delete removed.issue.user.login;
    const removedId = await insertEvent(container, codehost, { eventType: 'issues', payload: removed });
    await learnAll();
    let [occurrence] = await occurrences();
    expect(occurrence).toMatchObject({ type: 'relay.source.schema_changed', coalesce_key: `schema:${codehost.id}:issues` });
    expect(occurrence.data).toMatchObject({
      source: { id: codehost.id, name: 'Codehost A', slug: codehost.slug },
      event_type: 'issues',
      change: { kind: 'changed', added: [], removed: ['issue.user.login'], retyped: [] },
      event: { id: removedId },
      issue: { cause: 'schema_changed', state: 'open', event_type: 'issues', count: 1, event_count: 1 },
    });
    const [issue] = await sql<{ id: string; cause: string; state: string; endpoint_id: string; destination_id: string | null; last_error: string }>(
      container,
      'select id, cause, state, endpoint_id, destination_id, last_error from issues where endpoint_id = ?',
      [codehost.id],
    );
    expect(issue).toMatchObject({ cause: 'schema_changed', state: 'open', destination_id: null, last_error: 'removed issue.user.login' });

    // The same change again: learned already, no alert.
    await clearOccurrences();
    await insertEvent(container, codehost, { eventType: 'issues', payload: removed });
    await learnAll();
    expect(await occurrences()).toEqual([]);

    // A retyped path: a second change of the same type grows the same issue, and alerts (it is news).
    const retyped = clone(examplesOf('issues')[1]);
    retyped.issue.number = String(retyped.issue.number);
    await insertEvent(container, codehost, { eventType: 'issues', payload: retyped });
    await learnAll();
    [occurrence] = await occurrences();
    expect(occurrence.data.change).toMatchObject({ removed: [], retyped: [{ path: 'issue.number', from: ['integer'], to: ['string'] }] });
    expect(occurrence.data.issue).toMatchObject({ id: issue.id, count: 2, event_count: 2 });

    // Additions alone: recorded, no alert (schema_alerts "changes", the default).
    await clearOccurrences();
    const added = clone(examplesOf('issues')[2]);
    added.issue.ai_summary = { text: 'Looks like a bug' };
    await insertEvent(container, codehost, { eventType: 'issues', payload: added });
    await learnAll();
    expect(await occurrences()).toEqual([]);
    const [addition] = await sql<{ added: string[]; alerted: boolean }>(container, `select added, alerted from schema_changes where endpoint_id = ? order by id desc limit 1`, [codehost.id]);
    expect(addition).toEqual({ added: ['issue.ai_summary'], alerted: false });

    // A new event type, once the source's learning window is over: its own issue.
    await age(codehost);
    const fresh = await insertEvent(container, codehost, { eventType: 'sponsorship_tier', payload: { action: 'created', tier: { name: 'Gold' } } });
    await learnAll();
    [occurrence] = await occurrences();
    expect(occurrence.data).toMatchObject({ event_type: 'sponsorship_tier', change: { kind: 'new_event_type', added: [], removed: [], retyped: [] }, event: { id: fresh } });
    expect(occurrence.data.issue.id).not.toBe(issue.id);
    await clearOccurrences();
    await insertEvent(container, codehost, { eventType: 'sponsorship_tier', payload: { action: 'created', tier: { name: 'Silver' } } });
    await learnAll();
    expect(await occurrences()).toEqual([]);
  });

  it('acknowledging the issue makes the new shape the expected one: the old type again is a change', async () => {
    const shop = await source({ name: 'Shop' });
    const order = (id: unknown) => ({ id, total: 10, customer: { email: 'a@example.test' } });
    for (let k = 0; k < 20; k++) await insertEvent(container, shop, { eventType: 'order.paid', payload: order(k) });
    await insertEvent(container, shop, { eventType: 'order.paid', payload: order('o-21') });
    await learnAll();
    const [issue] = await sql<{ id: string }>(container, 'select id from issues where endpoint_id = ?', [shop.id]);
    const em = container.orm.em.fork();
    const view = await updateIssue({ em, container, project: ws.project } as never, issue.id, { state: 'acknowledged' });
    expect(view).toMatchObject({ state: 'acknowledged', source: { id: shop.id, name: 'Shop' }, destination: null, event_type: 'order.paid', cause: 'schema_changed' });
    expect(await sql(container, 'select 1 from schema_changes where endpoint_id = ? and accepted_at is null', [shop.id])).toEqual([]);

    await clearOccurrences();
    await insertEvent(container, shop, { eventType: 'order.paid', payload: order('o-22') });
    await learnAll();
    expect(await occurrences()).toEqual([]);
    await insertEvent(container, shop, { eventType: 'order.paid', payload: order(23) });
    await learnAll();
    const [occurrence] = await occurrences();
    expect(occurrence.data.change.retyped).toEqual([{ path: 'id', from: ['string'], to: ['integer'] }]);
    // The acknowledged issue is still the active one: it grows.
    expect(occurrence.data.issue).toMatchObject({ id: issue.id, state: 'acknowledged', count: 2 });
  });

  it('schema_alerts: "all" alerts on additions too; "off" records without alerting', async () => {
    const all = await source({ name: 'All', schemaAlerts: 'all' });
    const off = await source({ name: 'Off', schemaAlerts: 'off' });
    for (const s of [all, off]) {
      for (let k = 0; k < 20; k++) await insertEvent(container, s, { eventType: 't', payload: { a: k } });
      await insertEvent(container, s, { eventType: 't', payload: { a: 1, b: true } });
      await insertEvent(container, s, { eventType: 't', payload: { b: true } });
    }
    await learnAll();
    const found = await occurrences();
    expect(found.map((o) => [o.data.source.name, o.data.change.added, o.data.change.removed])).toEqual([
      ['All', ['b'], []],
      ['All', [], ['a']],
    ]);
    expect(await sql(container, 'select kind from schema_changes where endpoint_id = ? and not alerted', [off.id])).toHaveLength(2);
  });

  it('bounds the work and the storage: a sample once warm, at most so many types per source; the system source is not learned', async () => {
    const busy = await source({ name: 'Busy' });
    for (let k = 0; k < 20; k++) await insertEvent(container, busy, { eventType: 'tick', payload: { n: k } });
    await learnAll();
    for (let k = 0; k < 60; k++) await insertEvent(container, busy, { eventType: 'tick', payload: { n: k } });
    await learnAll({ samplePerType: 5 });
    const [tick] = await sql<{ event_count: string; learned_count: string }>(container, `select event_count, learned_count from event_schemas where endpoint_id = ?`, [busy.id]);
    expect(tick).toEqual({ event_count: '80', learned_count: '25' });

    const varied = await source({ name: 'Varied' });
    for (let k = 0; k < 8; k++) await insertEvent(container, varied, { eventType: `type-${k}`, payload: { k } });
    await learnAll({ maxTypesPerSource: 5 });
    expect(await sql(container, 'select 1 from event_schemas where endpoint_id = ?', [varied.id])).toHaveLength(5);
    expect(await sql(container, 'select untracked_event_count, event_count from source_activity where endpoint_id = ?', [varied.id])).toEqual([{ untracked_event_count: '3', event_count: '8' }]);

    const [system] = await sql<{ id: string }>(container, 'select id from webhook_endpoints where project_id = ? and is_system', [ws.project.id]);
    await insertEvent(container, { id: system.id } as WebhookEndpoint, { eventType: 'relay.issue.opened' });
    await learnAll();
    expect(await sql(container, 'select 1 from event_schemas where endpoint_id = ?', [system.id])).toEqual([]);
  });

  it('two passes at once count every event once', async () => {
    const twice = await source({ name: 'Twice' });
    for (let k = 0; k < 30; k++) await insertEvent(container, twice, { eventType: 'x', payload: { k } });
    const knex = container.orm.em.getConnection().getKnex();
    await Promise.all([learnSchemas(knex, { ...options, batchSize: 10 }), learnSchemas(knex, { ...options, batchSize: 10 }), learnAll({ batchSize: 10 })]);
    await learnAll();
    expect(await sql(container, 'select event_count from source_activity where endpoint_id = ?', [twice.id])).toEqual([{ event_count: '30' }]);
  });

  it('a source past its expected interval is silent once; its next event resumes it and resolves the issue', async () => {
    const quiet = await source({ name: 'Quiet', silenceAlerts: 'expected_interval', expectedIntervalSeconds: 60 });
    await insertEvent(container, quiet, { eventType: 'ping', payload: {} });
    await learnAll();
    expect(await checkSilence(container.orm.em.getConnection().getKnex())).toBe(0);
    // Two minutes pass (the event's receipt and id are moved back, as the clock would have).
    await sql(container, `update source_activity set last_event_at = last_event_at - interval '2 minutes' where endpoint_id = ?`, [quiet.id]);
    await sql(container, `update events set id = relay_uuidv7_floor(now() - interval '2 minutes'), created_at = created_at - interval '2 minutes' where endpoint_id = ?`, [quiet.id]);
    expect(await checkSilence(container.orm.em.getConnection().getKnex())).toBe(1);
    expect(await checkSilence(container.orm.em.getConnection().getKnex())).toBe(0);
    let found = await occurrences();
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ type: 'relay.source.silent', coalesce_key: `silence:${quiet.id}` });
    expect(found[0].data).toMatchObject({
      source: { id: quiet.id, name: 'Quiet' },
      expectation: { mode: 'expected_interval', interval_seconds: 60 },
      issue: { cause: 'source_silent', state: 'open' },
    });
    expect(found[0].data.last_event_at).toBe(found[0].data.silent_since);

    await clearOccurrences();
    const next = await insertEvent(container, quiet, { eventType: 'ping', payload: {} });
    await learnAll();
    found = await occurrences();
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ type: 'relay.source.resumed', data: { event: { id: next, type: 'ping' }, issue: { state: 'resolved', resolved_by: 'auto' } } });
    expect(await sql(container, 'select state from issues where endpoint_id = ?', [quiet.id])).toEqual([{ state: 'resolved' }]);
    expect(await checkSilence(container.orm.em.getConnection().getKnex())).toBe(0);
  });

  it('a learned expectation only after enough history; off and inactive sources never', async () => {
    const learned = await source({ name: 'Learned' });
    await insertEvent(container, learned, { eventType: 'ping', payload: {} });
    await learnAll();
    await sql(container, `update source_activity set last_event_at = now() - interval '1 day', expectation_since = now() - interval '1 day' where endpoint_id = ?`, [learned.id]);
    await sql(container, `update events set id = relay_uuidv7_floor(now() - interval '1 day') where endpoint_id = ?`, [learned.id]);
    // One event is no history: nothing learned, nothing alerts.
    expect(await checkSilence(container.orm.em.getConnection().getKnex())).toBe(0);
    await sql(container, `update source_activity set learned_interval_seconds = 3600 where endpoint_id = ?`, [learned.id]);
    await sql(container, `update webhook_endpoints set silence_alerts = 'off' where id = ?`, [learned.id]);
    expect(await checkSilence(container.orm.em.getConnection().getKnex())).toBe(0);
    await sql(container, `update webhook_endpoints set silence_alerts = 'learned', is_active = false where id = ?`, [learned.id]);
    expect(await checkSilence(container.orm.em.getConnection().getKnex())).toBe(0);
    await sql(container, `update webhook_endpoints set is_active = true where id = ?`, [learned.id]);
    expect(await checkSilence(container.orm.em.getConnection().getKnex())).toBe(1);
    expect((await occurrences())[0].data.expectation).toEqual({ mode: 'learned', interval_seconds: 3600 });
  });
});
