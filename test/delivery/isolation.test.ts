import http from 'node:http';
import { DeliveryDispatcher, claimDeliveriesToStart } from '../../src/deliveries/delivery-dispatcher';
import { fanOutEvents } from '../../src/deliveries/fan-out';
import { metricsRegistry } from '../../src/metrics/metrics';
import { startRelayWorker } from '../../src/worker/worker';
import { insertEvent } from '../support/factories';
import { freePort } from '../support/free-port';
import { createTestContainer, type TestContainer } from '../support/test-env';
import { attemptsOf, createScene, sql, startDeliveryStack, type DeliveryStack, waitForDeliveries, waitForStatus } from './harness';
import { startReceiver } from './receiver';
import { startWorkerChild, type WorkerChild } from './worker-child';

/**
 * Delivery isolation (docs/internals/delivery.md "Capacity and isolation"): a
 * destination's max_concurrency across worker processes, its circuit breaker,
 * and the fair dispatcher. Each mechanism is checked where it would fail
 * without it.
 */

/** A receiver that answers after `delayMs` and records how many requests it held at once. */
async function startSlowReceiver(delayMs: number, port = 0): Promise<{ url: string; received: number; maxInFlight: number; close(): Promise<void> }> {
  let inFlight = 0;
  const state = {
    url: '',
    received: 0,
    maxInFlight: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    inFlight += 1;
    state.received += 1;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        inFlight -= 1;
        res.end('ok');
      }, delayMs),
    );
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  return state;
}

async function until(check: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('max_concurrency across two worker processes', () => {
  let t: TestContainer;
  const workers: WorkerChild[] = [];

  beforeAll(async () => {
    t = await createTestContainer();
  });
  afterAll(async () => {
    for (const w of workers) await w.kill('SIGTERM');
    await t?.close();
  });

  it('never has more attempts in flight to one destination than its limit, and throttled waits are not attempts', async () => {
    const receiver = await startSlowReceiver(400);
    try {
      const scene = await createScene(t.container);
      const destination = await scene.destination(receiver.url, { maxConcurrency: 2 });
      for (let i = 0; i < 2; i++) {
        workers.push(await startWorkerChild({ databaseUrl: t.db.url, taskQueue: t.container.config.TEMPORAL_TASK_QUEUE }));
      }
      for (let i = 0; i < 10; i++) await insertEvent(t.container, scene.endpoint, { payload: { n: i } });
      await until(async () => (await sql(t.container, `select id from deliveries where destination_id = ? and status = 'success'`, [destination.id])).length === 10, 60_000);
      expect(receiver.received).toBe(10);
      expect(receiver.maxInFlight).toBe(2);
      // Every delivery succeeded at its first attempt: waiting for a lease is not an attempt.
      const attempts = await sql<{ attempt_number: number }>(t.container, 'select attempt_number from delivery_attempts where destination_id = ?', [destination.id]);
      expect(attempts.map((a) => a.attempt_number)).toEqual(Array(10).fill(1));
      expect(await sql(t.container, 'select * from destination_leases where destination_id = ?', [destination.id])).toEqual([]);
    } finally {
      await receiver.close();
    }
  }, 120_000);
});

describe('the circuit breaker', () => {
  let stack: DeliveryStack;

  beforeAll(async () => {
    stack = await startDeliveryStack({
      env: { RELAY_CIRCUIT_FAILURE_THRESHOLD: '2', RELAY_CIRCUIT_COOLDOWN_SECONDS: '2', RELAY_CIRCUIT_MAX_COOLDOWN_SECONDS: '8' },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  const circuitOf = async (destinationId: string) =>
    (await sql<{ state: string; cooldown_seconds: number; consecutive_failures: number }>(stack.t.container, 'select * from destination_circuits where destination_id = ?', [destinationId]))[0];
  const transitions = async (transition: string) => {
    const metric = await metricsRegistry.getSingleMetric('relay_destination_circuit_transitions_total')!.get();
    return metric.values.find((v) => v.labels.transition === transition)?.value ?? 0;
  };

  it('opens after consecutive connection errors, defers without counting, reopens on a failed probe, closes on a good one', async () => {
    const container = stack.t.container;
    const port = await freePort(); // nothing listens yet: connection refused
    const scene = await createScene(container);
    const destination = await scene.destination(`http://127.0.0.1:${port}/hook`, { retryPolicy: { max_attempts: 6, backoff: [1, 1, 1, 10, 10] } });
    const opened = await transitions('opened');

    await insertEvent(container, scene.endpoint, { payload: { n: 1 } });
    await insertEvent(container, scene.endpoint, { payload: { n: 2 } });
    await until(async () => (await circuitOf(destination.id))?.state === 'open');
    // The metric counts once the recording statement has returned, a moment after its commit shows the state.
    await until(async () => (await transitions('opened')) > opened);
    expect(await transitions('opened')).toBe(opened + 1);

    // While it is open, nothing goes out but one probe per cool-down: the two refused attempts opened it,
    // the first probe (after 2 s) finds the port still closed and reopens it with twice the cool-down.
    // The deliveries retrying every second, and a new one, were deferred meanwhile: not sent, not recorded.
    const third = await insertEvent(container, scene.endpoint, { payload: { n: 3 } });
    await waitForDeliveries(container, third, 1);
    await until(async () => (await circuitOf(destination.id))?.cooldown_seconds === 4, 20_000);
    expect((await circuitOf(destination.id)).state).toBe('open');
    const recorded = async () => (await sql<{ n: number }>(container, 'select count(*)::int as n from delivery_attempts where destination_id = ?', [destination.id]))[0].n;
    expect(await recorded()).toBe(3);

    const receiver = await startSlowReceiver(0, port);
    try {
      await until(async () => (await circuitOf(destination.id))?.state === 'closed', 20_000);
      const deliveries = await sql<{ id: string }>(container, 'select id from deliveries where destination_id = ?', [destination.id]);
      expect(deliveries).toHaveLength(3);
      for (const d of deliveries) expect((await waitForStatus(container, d.id, ['success', 'failed'])).status).toBe('success');
      // Three failures (two refused, one probe) and three successes: every deferral went unrecorded and uncounted.
      expect(await recorded()).toBe(6);
      expect(receiver.received).toBe(3);
      for (const d of deliveries) {
        const numbers = (await attemptsOf(container, d.id)).map((a) => a.attempt_number);
        expect(numbers).toEqual(numbers.map((_, i) => i + 1));
      }
      expect((await circuitOf(destination.id)).consecutive_failures).toBe(0);
      expect(await transitions('closed')).toBeGreaterThan(0);
    } finally {
      await receiver.close();
    }
  }, 90_000);

  it('never keeps a delivery past its retry schedule: still open at the end, it is dead-lettered without a send', async () => {
    const container = stack.t.container;
    const port = await freePort();
    const scene = await createScene(container);
    // The schedule ends 1 s after creation; the circuit (threshold 2) opens on the first two failures and cools down 2 s.
    const destination = await scene.destination(`http://127.0.0.1:${port}/hook`, { retryPolicy: { max_attempts: 2, backoff: [1] } });
    const events = [await insertEvent(container, scene.endpoint), await insertEvent(container, scene.endpoint)];
    await until(async () => (await circuitOf(destination.id))?.state === 'open');
    for (const eventId of events) {
      const [d] = await waitForDeliveries(container, eventId, 1);
      const done = await waitForStatus(container, d.id, ['success', 'failed']);
      expect(done.status).toBe('failed');
      const attempts = await attemptsOf(container, d.id);
      expect(attempts.at(-1)!.error).toMatch(/circuit open|connection error/);
      expect(attempts.length).toBeLessThanOrEqual(2);
      const [row] = await sql<{ dead_lettered_at: Date | null }>(container, 'select dead_lettered_at from deliveries where id = ?', [d.id]);
      expect(row.dead_lettered_at).not.toBeNull();
    }
  }, 60_000);
});

describe('fair dispatch', () => {
  // A `cli` destination too: a forward waiting for its CLI's answer holds a lease, so a wider window only made workflows poll "throttled".
  it.each(['webhook', 'cli'])("a %s destination's window is its max_concurrency: no more of its workflows are started than can send at once", async (type) => {
    const t = await createTestContainer();
    const dispatcher = new DeliveryDispatcher(t.container, { pollIntervalMs: 50, perDestinationWindow: 32, maxUnattempted: 100 });
    try {
      const scene = await createScene(t.container);
      const destination = await scene.destination('http://127.0.0.1:9/never');
      await sql(t.container, 'update destinations set max_concurrency = 2, type = ? where id = ?', [type, destination.id]);
      for (let i = 0; i < 10; i++) await insertEvent(t.container, scene.endpoint, { payload: { n: i } });
      await dispatcher.start();
      const started = async () => (await sql(t.container, 'select id from deliveries where destination_id = ? and workflow_started_at is not null', [destination.id])).length;
      await until(async () => (await started()) === 2);
      // No worker: nothing is attempted, so later passes start no more (it was twice max_concurrency).
      await new Promise((r) => setTimeout(r, 500));
      expect(await started()).toBe(2);
    } finally {
      await dispatcher.stop();
      await t.close();
    }
  }, 60_000);

  it("one destination's backlog fills only its own window: another destination's deliveries start at once, and order holds within each", async () => {
    const t = await createTestContainer();
    // No worker yet: started workflows wait, as when a destination drains slower than events arrive.
    const dispatcher = new DeliveryDispatcher(t.container, { pollIntervalMs: 50, perDestinationWindow: 3, maxUnattempted: 100 });
    const receiver = await startReceiver();
    try {
      const noisy = await createScene(t.container);
      await noisy.destination(`${receiver.url}/noisy`);
      const quiet = await createScene(t.container);
      const quietDestination = await quiet.destination(`${receiver.url}/quiet`);
      const noisyEvents: string[] = [];
      for (let i = 0; i < 30; i++) noisyEvents.push(await insertEvent(t.container, noisy.endpoint, { payload: { n: i } }));
      await dispatcher.start();
      const started = async (endpointId: string) =>
        (await sql<{ event_id: string }>(t.container, 'select event_id from deliveries where endpoint_id = ? and workflow_started_at is not null order by event_id', [endpointId])).map((r) => r.event_id);
      await until(async () => (await started(noisy.endpoint.id)).length === 3);

      const quietEvents = [await insertEvent(t.container, quiet.endpoint), await insertEvent(t.container, quiet.endpoint)];
      await until(async () => (await started(quiet.endpoint.id)).length === 2, 10_000);
      // Passes later, the noisy destination still has only its window's worth started: its oldest three.
      await new Promise((r) => setTimeout(r, 500));
      expect(await started(noisy.endpoint.id)).toEqual(noisyEvents.slice(0, 3));
      expect(await started(quiet.endpoint.id)).toEqual(quietEvents);

      // A worker drains both; the noisy backlog is started in arrival order.
      const worker = await startRelayWorker(t.container);
      try {
        await until(async () => receiver.requests.length === 32, 60_000);
      } finally {
        await dispatcher.stop();
        await worker.stop();
      }
      const noisyOrder = await sql<{ event_id: string }>(t.container, 'select event_id from deliveries where endpoint_id = ? order by workflow_started_at, event_id', [noisy.endpoint.id]);
      expect(noisyOrder.map((r) => r.event_id)).toEqual(noisyEvents);
      expect((await sql(t.container, `select id from deliveries where destination_id = ? and status = 'success'`, [quietDestination.id])).length).toBe(2);
    } finally {
      await dispatcher.stop();
      await receiver.close();
      await t.close();
    }
  }, 90_000);

  it("a project's many busy destinations together keep to the project's window", async () => {
    const t = await createTestContainer();
    const dispatcher = new DeliveryDispatcher(t.container, { pollIntervalMs: 50, perDestinationWindow: 3, perProjectWindow: 4, maxUnattempted: 100 });
    const receiver = await startReceiver();
    try {
      const busy = await createScene(t.container);
      for (let d = 0; d < 3; d++) await busy.destination(`${receiver.url}/busy-${d}`);
      for (let i = 0; i < 10; i++) await insertEvent(t.container, busy.endpoint, { payload: { n: i } });
      const other = await createScene(t.container);
      await other.destination(`${receiver.url}/other`);
      const otherEvent = await insertEvent(t.container, other.endpoint);
      await dispatcher.start();
      const started = async (projectId: string) =>
        (await sql(t.container, 'select id from deliveries where project_id = ? and workflow_started_at is not null', [projectId])).length;
      await until(async () => (await started(other.project.id)) === 1);
      await until(async () => (await started(busy.project.id)) >= 4);
      await new Promise((r) => setTimeout(r, 500));
      // Three destinations × a window of 3 would be 9: the project's window holds it to 4.
      expect(await started(busy.project.id)).toBe(4);
      expect((await sql<{ event_id: string }>(t.container, 'select event_id from deliveries where project_id = ?', [other.project.id]))[0].event_id).toBe(otherEvent);
    } finally {
      await dispatcher.stop();
      await receiver.close();
      await t.close();
    }
  }, 60_000);

  it("fans out fairly between sources: one source's backlog does not hold another's next event behind it", async () => {
    const t = await createTestContainer();
    try {
      const noisy = await createScene(t.container);
      await noisy.destination('http://127.0.0.1:9/noisy');
      const quiet = await createScene(t.container);
      await quiet.destination('http://127.0.0.1:9/quiet');
      const noisyEvents: string[] = [];
      for (let i = 0; i < 30; i++) noisyEvents.push(await insertEvent(t.container, noisy.endpoint, { payload: { n: i } }));
      const quietEvent = await insertEvent(t.container, quiet.endpoint);
      const knex = t.container.orm.em.getConnection().getKnex();
      // One pass of 10: the quiet source's event and the noisy source's nine oldest, not the ten oldest overall.
      expect(await fanOutEvents(knex, 10)).toEqual({ events: 10, deliveries: 10 });
      const fanned = (await sql<{ id: string }>(t.container, 'select id from events where dispatched_at is not null order by id')).map((r) => r.id);
      expect(fanned).toEqual([...noisyEvents.slice(0, 9), quietEvent]);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('a claim says which destinations it left deliveries waiting for a window, and none when it started them all (no re-look 100 ms later)', async () => {
    const t = await createTestContainer();
    try {
      const scene = await createScene(t.container);
      const destination = await scene.destination('http://127.0.0.1:9/never');
      const knex = t.container.orm.em.getConnection().getKnex();
      const opts = { batchSize: 500, perDestinationWindow: 2, perProjectWindow: 100, maxUnattempted: 100, defaultMaxConcurrency: 100 };
      await insertEvent(t.container, scene.endpoint);
      await fanOutEvents(knex, 10);
      // Room for it: started, nothing left waiting (the claim used to count its own destination, so every pass was followed by another).
      expect(await claimDeliveriesToStart(knex, opts)).toMatchObject({ deliveries: [expect.objectContaining({ destinationId: destination.id })], waiting: 0 });
      for (let i = 0; i < 3; i++) await insertEvent(t.container, scene.endpoint);
      await fanOutEvents(knex, 10);
      // A window of 2, one taken: one started, two left waiting on this destination.
      const second = await claimDeliveriesToStart(knex, opts);
      expect([second.deliveries.length, second.waiting]).toEqual([1, 1]);
      expect(await claimDeliveriesToStart(knex, opts)).toEqual({ deliveries: [], waiting: 1 });
    } finally {
      await t.close();
    }
  }, 60_000);
});
