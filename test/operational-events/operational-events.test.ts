import http from 'node:http';
import { WebhookEndpoint } from '../../src/endpoints/endpoint.entity';
import { FilterCondition } from '../../src/filters/filter-condition.entity';
import { FilterGroup } from '../../src/filters/filter-group.entity';
import { OperationalEventPublisher } from '../../src/operational-events/operational-event-publisher';
import { createDestination, insertEvent, linkEndpoint } from '../support/factories';
import { startFakePlatforms, type FakePlatforms } from '../support/fake-platforms';
import { freePort } from '../support/free-port';
import { createScene, type DeliveryStack, type Scene, sql, startDeliveryStack, waitForDeliveries, waitForStatus } from '../delivery/harness';
import { type Receiver, startReceiver } from '../delivery/receiver';

/**
 * Operational events end to end (docs/operational-events.md), against the real worker, dispatcher
 * and publisher: destinations driven into dead letters, an open circuit and a 410 pause; the events
 * arrive on a webhook receiver and a chat_b stand-in linked to the system source, once each,
 * coalesced, filtered, and never about the failures of their own deliveries.
 */

interface Envelope {
  type: string;
  occurred_at: string;
  count: number;
  first_occurred_at: string;
  project: { id: string; name: string };
  dashboard_url: string;
  data: Record<string, any>;
}

interface StoredEvent {
  event_type: string;
  status: string;
  payload: Envelope;
}

async function until(check: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 50));
}

describe('operational events (real PostgreSQL, Temporal server, worker and publisher)', () => {
  let stack: DeliveryStack;
  let publisher: OperationalEventPublisher;
  let fakes: FakePlatforms;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    fakes = await startFakePlatforms();
    stack = await startDeliveryStack({
      env: {
        RELAY_CIRCUIT_FAILURE_THRESHOLD: '2',
        RELAY_CIRCUIT_COOLDOWN_SECONDS: '2',
        RELAY_CIRCUIT_MAX_COOLDOWN_SECONDS: '4',
        RELAY_OPERATIONAL_EVENT_WINDOW_SECONDS: '3',
      },
    });
    publisher = new OperationalEventPublisher(stack.t.container, { pollIntervalMs: 500 });
    await publisher.start();
  });

  afterAll(async () => {
    await publisher?.stop();
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.close();
    await fakes?.close();
  });

  const container = () => stack.t.container;

  async function receiver(): Promise<Receiver> {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  }

  async function systemSourceOf(scene: Scene): Promise<WebhookEndpoint> {
    return container().orm.em.fork().findOneOrFail(WebhookEndpoint, { project: scene.project.id, isSystem: true });
  }

  /** Links a new destination to the project's system source. */
  async function alertDestination(scene: Scene, fields: Parameters<typeof createDestination>[3]) {
    const em = container().orm.em.fork();
    const destination = await createDestination(container(), em, scene.project, fields);
    await linkEndpoint(em, await systemSourceOf(scene), destination);
    return destination;
  }

  async function storedOperationalEvents(scene: Scene): Promise<StoredEvent[]> {
    const system = await systemSourceOf(scene);
    return sql<StoredEvent>(container(), 'select event_type, status, payload from events where endpoint_id = ? order by id', [system.id]);
  }

  it('a webhook linked to the system source receives dead_lettered, circuit_opened and circuit_closed once each; its own failures emit nothing', async () => {
    const scene = await createScene(container());
    const alerts = await receiver();
    // Its event types choose what it gets: here not the issue events (checked in the stored events below).
    await alertDestination(scene, { name: 'Alerts', webhookUrl: alerts.url, eventTypes: ['relay.delivery.dead_lettered', 'relay.destination.circuit_opened', 'relay.destination.circuit_closed'] });
    // An alert destination that fails too: its failed deliveries of operational events must not cascade.
    const brokenAlerts = await alertDestination(scene, { name: 'Broken alerts', webhookUrl: `http://127.0.0.1:${await freePort()}/down`, retryPolicy: { max_attempts: 1, backoff: [1] } });
    const downPort = await freePort();
    const flaky = await scene.destination(`http://127.0.0.1:${downPort}/hook`, { name: 'Flaky', retryPolicy: { max_attempts: 2, backoff: [1] } });

    // Two refused connections: the circuit opens (threshold 2) on the last attempt, which is dead-lettered.
    const first = await insertEvent(container(), scene.endpoint, { eventType: 'order.paid' });
    const [dead] = await waitForDeliveries(container(), first, 1);
    await waitForStatus(container(), dead.id, ['failed']);
    await alerts.waitFor(2);
    const [a, b] = alerts.requests.map((r) => JSON.parse(r.body) as Envelope);
    const byType = Object.fromEntries([a, b].map((e) => [e.type, e]));
    expect(Object.keys(byType).sort()).toEqual(['relay.delivery.dead_lettered', 'relay.destination.circuit_opened']);
    expect(byType['relay.delivery.dead_lettered']).toEqual({
      type: 'relay.delivery.dead_lettered',
      occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      count: 1,
      first_occurred_at: expect.any(String),
      project: { id: scene.project.id, name: 'Default' },
      dashboard_url: `${container().config.publicBaseUrl}/destinations/${flaky.id}?project=${scene.project.id}`,
      data: {
        destination: { id: flaky.id, name: 'Flaky', type: 'webhook' },
        event: { id: first, type: 'order.paid', endpoint_id: scene.endpoint.id, endpoint_slug: scene.endpoint.slug },
        delivery: { id: dead.id, attempts: 2, dead_lettered_at: expect.any(String) },
        last_attempt: { status_code: null, error: expect.stringMatching(/^connection error: .*ECONNREFUSED/) },
      },
    });
    expect(byType['relay.destination.circuit_opened'].data).toEqual({
      destination: { id: flaky.id, name: 'Flaky', type: 'webhook' },
      failures: 2,
      since: expect.any(String),
      next_probe_at: expect.any(String),
      last_error: expect.stringMatching(/ECONNREFUSED/),
    });
    // Delivered like any event: the project's header prefix, the system source as the endpoint.
    const system = await systemSourceOf(scene);
    expect(alerts.requests[0].headers['x-service-endpoint-id']).toBe(system.id);

    // The receiver comes back: the next delivery (waiting for the cool-down, within its longer schedule) probes and closes the circuit.
    await sql(container(), `update destinations set retry_policy = '{"max_attempts": 4, "backoff": [10, 10, 10]}' where id = ?`, [flaky.id]);
    const server = http.createServer((req, res) => req.resume().on('end', () => res.end('ok')));
    await new Promise<void>((resolve) => server.listen(downPort, '127.0.0.1', resolve));
    try {
      const second = await insertEvent(container(), scene.endpoint, { eventType: 'order.paid' });
      const [ok] = await waitForDeliveries(container(), second, 1);
      await waitForStatus(container(), ok.id, ['success']);
      await alerts.waitFor(3);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    const closed = JSON.parse(alerts.requests[2].body) as Envelope;
    expect(closed).toMatchObject({ type: 'relay.destination.circuit_closed', count: 1 });
    expect(closed.data).toEqual({ destination: { id: flaky.id, name: 'Flaky', type: 'webhook' }, failures: 2, since: byType['relay.destination.circuit_opened'].data.since, closed_at: expect.any(String) });

    // The broken alert destination got the four events and dead-lettered each (its circuit opened too, and issues
    // opened): nothing about it was emitted.
    await until(async () => (await sql(container(), `select 1 from deliveries where destination_id = ? and status = 'failed'`, [brokenAlerts.id])).length >= 4);
    expect(await sql(container(), 'select type from operational_occurrences')).toEqual([]);
    const stored = await storedOperationalEvents(scene);
    // The first refused attempt opened an issue; the second one's statement dead-lettered and opened the circuit (same
    // millisecond: either order); the closing came after them.
    const types = stored.map((e) => e.event_type);
    expect([types[0], ...types.slice(1, 3).sort(), types[3]]).toEqual([
      'relay.issue.opened',
      'relay.delivery.dead_lettered',
      'relay.destination.circuit_opened',
      'relay.destination.circuit_closed',
    ]);
    expect(stored.every((e) => e.payload.data.destination.id === flaky.id)).toBe(true);
    expect(await sql(container(), 'select 1 from deliveries where destination_id = ?', [brokenAlerts.id])).toHaveLength(4);
    expect(alerts.requests).toHaveLength(3);
  });

  it('a chat_b channel linked to the system source gets readable messages from the default templates', async () => {
    const scene = await createScene(container());
    fakes.reset();
    await alertDestination(scene, { name: 'Ops channel', type: 'chat_b', webhookUrl: fakes.chatB.webhookUrl });
    const gone = await receiver();
    gone.respond = () => ({ status: 410, body: 'this hook was deleted' });
    const retired = await scene.destination(gone.url, { name: 'Retired hook' });

    await insertEvent(container(), scene.endpoint, { eventType: 'invoice.created' });
    await until(() => fakes.chatB.delivered.length >= 3);
    const embeds = fakes.chatB.delivered.map((r) => (r.body as { embeds: Array<Record<string, any>> }).embeds[0]);
    const titles = embeds.map((e) => e.title).sort();
    expect(titles).toEqual(['A delivery to Retired hook failed for good', 'Destination paused: Retired hook', 'Issue opened: Retired hook · http_4xx']);
    const deadLetter = embeds.find((e) => e.title.startsWith('A delivery'))!;
    expect(deadLetter.description).toBe('Event invoice.created gave up after 1 attempt and is in the dead-letter queue.');
    expect(deadLetter.fields).toEqual([
      { name: 'Destination', value: 'Retired hook (webhook)', inline: true },
      { name: 'Last answer', value: 'HTTP 410 Gone: the receiver says this URL is gone; the destination is paused', inline: true },
      { name: 'Event', value: expect.stringMatching(/^[0-9a-f-]{36} via ep-/) },
    ]);
    expect(deadLetter.url).toBe(`${container().config.publicBaseUrl}/destinations/${retired.id}?project=${scene.project.id}`);
    const paused = embeds.find((e) => e.title.startsWith('Destination paused'))!;
    expect(paused.description).toBe('Its receiver answered 410 Gone, so the destination was paused: new events are not sent to it. Resume it once its URL is fixed.');
    expect(paused.footer.text).toBe('Default · relay operational event');
  });

  it('coalesces a burst into one event per destination and window, with a count; the system source’s filters apply', async () => {
    const scene = await createScene(container());
    const alerts = await receiver();
    await alertDestination(scene, { name: 'Alerts', webhookUrl: alerts.url });
    // Only dead letters pass the system source's filter: the 410's pause is stored as filtered.
    const em = container().orm.em.fork();
    const group = em.create(FilterGroup, { endpoint: await systemSourceOf(scene), name: 'dead letters only', logic: 'AND' });
    em.create(FilterCondition, { filterGroup: group, field: 'body.type', operator: 'eq', value: 'relay.delivery.dead_lettered', position: 0 });
    await em.flush();

    const failing = await receiver();
    failing.respond = () => ({ status: 500, body: 'boom' });
    const noisy = await scene.destination(failing.url, { name: 'Noisy', retryPolicy: { max_attempts: 1, backoff: [1] } });
    const events = await Promise.all([1, 2, 3].map(() => insertEvent(container(), scene.endpoint)));
    for (const id of events) await waitForStatus(container(), (await waitForDeliveries(container(), id, 1))[0].id, ['failed']);

    // Every dead letter is counted once; fewer events than dead letters unless the failures were a window apart.
    const deadLettersOf = async (id: string) => (await storedOperationalEvents(scene)).filter((e) => e.event_type === 'relay.delivery.dead_lettered' && e.payload.data.destination.id === id);
    await until(async () => (await deadLettersOf(noisy.id)).reduce((n, e) => n + e.payload.count, 0) === 3);
    const aboutNoisy = await deadLettersOf(noisy.id);
    // At most one per window (3 s here): each event is stored at least a window after the one before, however the
    // burst was spread (a loaded machine may spread it; test/operational-events/coalescing.test.ts fixes the timing).
    const gaps = await sql<{ apart: boolean }>(
      container(),
      `select created_at - lag(created_at) over (order by created_at) >= interval '3 seconds' as apart from events
        where endpoint_id = ? and event_type = 'relay.delivery.dead_lettered' and payload->'data'->'destination'->>'id' = ? order by created_at`,
      [(await systemSourceOf(scene)).id, noisy.id],
    );
    expect(gaps.slice(1).every((g) => g.apart)).toBe(true);
    expect(aboutNoisy.every((e) => e.status === 'received')).toBe(true);
    for (const { payload } of aboutNoisy) expect(payload.first_occurred_at <= payload.occurred_at).toBe(true);

    const gone = await receiver();
    gone.respond = () => ({ status: 410 });
    const retired = await scene.destination(gone.url, { name: 'Retired' });
    const eventId = await insertEvent(container(), scene.endpoint);
    await waitForStatus(container(), (await waitForDeliveries(container(), eventId, 2)).find((d) => d.destination_id === retired.id)!.id, ['failed']);
    await until(async () => (await storedOperationalEvents(scene)).some((e) => e.event_type === 'relay.destination.disabled'));
    const disabled = (await storedOperationalEvents(scene)).find((e) => e.event_type === 'relay.destination.disabled')!;
    expect(disabled).toMatchObject({ status: 'filtered', payload: { data: { destination: { id: retired.id }, reason: 'receiver_gone', status_code: 410 } } });

    // The issue openings did not pass the filter either.
    expect((await storedOperationalEvents(scene)).filter((e) => e.event_type === 'relay.issue.opened').map((e) => e.status)).toEqual(['filtered', 'filtered']);
    // What reached the receiver: dead letters only.
    await until(async () => alerts.requests.length === (await storedOperationalEvents(scene)).filter((e) => e.status === 'received').length);
    expect(alerts.requests.map((r) => (JSON.parse(r.body) as Envelope).type).every((t) => t === 'relay.delivery.dead_lettered')).toBe(true);
  });
});
