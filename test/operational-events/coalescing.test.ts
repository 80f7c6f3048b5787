import { randomUUID } from 'node:crypto';
import { publishOperationalEvents } from '../../src/operational-events/operational-event-publisher';
import { createDestination, createEndpoint, createWorkspace, type Workspace } from '../support/factories';
import { createTestContainer, type TestContainer } from '../support/test-env';
import { sql } from '../delivery/harness';

/**
 * Coalescing (docs/operational-events.md "Coalescing"), step by step on real PostgreSQL: dead
 * letters are recorded through the function the attempt-recording statement calls, and the
 * publisher's passes are run by hand, so a window is opened and expired by the test, not by a clock.
 * With the default window (60 s): at most one `relay.delivery.dead_lettered` per destination per
 * minute, the held ones counted into the next.
 */

interface Stored {
  event_type: string;
  payload: { type: string; count: number; occurred_at: string; first_occurred_at: string; data: Record<string, any> };
}

describe('operational events: coalescing (real PostgreSQL, the publisher run pass by pass)', () => {
  let t: TestContainer;
  let ws: Workspace;
  let systemSourceId: string;
  const WINDOW = 60;

  beforeAll(async () => {
    t = await createTestContainer();
    const em = t.container.orm.em.fork();
    ws = await createWorkspace(em);
    await createEndpoint(t.container, em, ws.project);
    [{ id: systemSourceId }] = await sql<{ id: string }>(t.container, 'select id from webhook_endpoints where project_id = ? and is_system', [ws.project.id]);
  });
  afterAll(() => t?.close());

  const knex = () => t.container.orm.em.getConnection().getKnex();
  const pass = (windowSeconds = WINDOW) => publishOperationalEvents(knex(), { windowSeconds, publicBaseUrl: 'https://relay.example.test' });
  const deadLettersAbout = async (destinationId: string) =>
    (await sql<Stored>(t.container, `select event_type, payload from events where endpoint_id = ? and event_type = 'relay.delivery.dead_lettered' order by id`, [systemSourceId])).filter(
      (e) => e.payload.data.destination.id === destinationId,
    );

  async function destination(name: string): Promise<string> {
    return (await createDestination(t.container, t.container.orm.em.fork(), ws.project, { name, webhookUrl: 'https://hooks.example.test/x' })).id;
  }

  /** What recording a delivery's last failed attempt emits (relay_attempt_effects, called by recordAttempt). */
  async function deadLetter(destinationId: string, statusCode: number): Promise<string> {
    const eventId = randomUUID();
    await sql(t.container, 'select relay_attempt_effects(?::jsonb)', [
      JSON.stringify({
        project_id: ws.project.id,
        destination_id: destinationId,
        event_id: eventId,
        event_type: 'order.paid',
        endpoint_id: randomUUID(),
        endpoint_slug: 'shop',
        delivery_id: randomUUID(),
        attempt_number: 3,
        status_code: statusCode,
        error: `HTTP ${statusCode}`,
        status: 'failed',
      }),
    ]);
    return eventId;
  }

  it('publishes the first dead letter at once, holds the rest of the minute, then sends them as one event with their count', async () => {
    const orders = await destination('Orders');
    const billing = await destination('Billing');

    await deadLetter(orders, 500);
    expect((await pass()).published).toBe(1);
    expect((await deadLettersAbout(orders)).map((e) => e.payload.count)).toEqual([1]);

    // A burst within the window: held, not published.
    const burst = [await deadLetter(orders, 500), await deadLetter(orders, 502), await deadLetter(orders, 503)];
    const held = await pass();
    expect(held.published).toBe(0);
    expect(await deadLettersAbout(orders)).toHaveLength(1);
    // The publisher wakes when the window ends: a minute after the first event.
    const [{ due_at }] = await sql<{ due_at: string }>(
      t.container,
      `select extract(epoch from emitted_at + make_interval(secs => ?)) * 1000 as due_at from operational_windows where coalesce_key = ?`,
      [WINDOW, `dead_lettered:${orders}`],
    );
    expect(held.nextDueAt).toBe(Number(due_at));

    // Another destination's dead letters have their own window: published at once.
    await deadLetter(billing, 404);
    expect((await pass()).published).toBe(1);
    expect((await deadLettersAbout(billing)).map((e) => e.payload.count)).toEqual([1]);
    expect(await deadLettersAbout(orders)).toHaveLength(1);

    // The window ends (moved back rather than waited for): the three become one event.
    await sql(t.container, `update operational_windows set emitted_at = emitted_at - make_interval(secs => ?) where coalesce_key = ?`, [WINDOW, `dead_lettered:${orders}`]);
    expect((await pass()).published).toBe(1);
    const events = await deadLettersAbout(orders);
    expect(events).toHaveLength(2);
    const coalesced = events[1].payload;
    expect(coalesced.count).toBe(3);
    // `data` describes the latest of them; first_occurred_at is when the first happened.
    expect(coalesced.data.event.id).toBe(burst[2]);
    expect(coalesced.data.last_attempt).toEqual({ status_code: 503, error: 'HTTP 503' });
    expect(coalesced.first_occurred_at <= coalesced.occurred_at).toBe(true);
    expect(coalesced.first_occurred_at >= events[0].payload.occurred_at).toBe(true);

    // Nothing is left to publish, and the new window holds the next one again.
    expect(await sql(t.container, 'select 1 from operational_occurrences')).toEqual([]);
    await deadLetter(orders, 500);
    expect((await pass()).published).toBe(0);
  });

  it('with a window of 0 every pass publishes what it finds, one event per destination with the count of what arrived since the last pass', async () => {
    const orders = await destination('Orders (no window)');
    await deadLetter(orders, 500);
    await pass(0);
    await deadLetter(orders, 500);
    await deadLetter(orders, 500);
    await pass(0);
    expect((await deadLettersAbout(orders)).map((e) => e.payload.count)).toEqual([1, 2]);
  });
});
