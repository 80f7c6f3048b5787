import { readiness } from '../../src/health/readiness';
import { DeliveryDispatcher } from '../../src/deliveries/delivery-dispatcher';
import { readDeliveryBacklog, trackDeliveryBacklog } from '../../src/deliveries/delivery-backlog';
import { startMetricsServer } from '../../src/metrics/metrics-server';
import { startRelayWorker } from '../../src/worker/worker';
import { insertEvent } from '../support/factories';
import { createTestContainer } from '../support/test-env';
import { createScene, type DeliveryStack, resetReceiver, sql, startDeliveryStack, waitForDeliveries, waitForStatus } from './harness';
import { startReceiver } from './receiver';

/** One series of the process's registry, read from the Prometheus text that /metrics serves (0 when absent). */
function series(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

describe('delivery metrics (real PostgreSQL, Temporal server and worker)', () => {
  let stack: DeliveryStack;
  let metrics: Awaited<ReturnType<typeof startMetricsServer>>;
  const scrape = async () => (await fetch(`http://127.0.0.1:${metrics.port}/metrics`)).text();

  beforeAll(async () => {
    stack = await startDeliveryStack();
    trackDeliveryBacklog(() => stack.t.container.orm.em.getConnection().getKnex());
    // What `relay worker` serves on RELAY_WORKER_METRICS_PORT.
    metrics = await startMetricsServer({ port: 0, host: '127.0.0.1', ready: () => readiness(stack.t.container) });
  });

  afterAll(async () => {
    await metrics?.close();
    await stack?.close();
  });

  it('counts attempts, send and ingest→first-attempt latency, retries and dead letters as deliveries happen', async () => {
    const { t, receiver } = stack;
    resetReceiver(receiver);
    const webhook = { destination_type: 'webhook' };
    const before = await scrape();

    const scene = await createScene(t.container);
    await scene.destination(receiver.url);
    const ok = await waitForDeliveries(t.container, await insertEvent(t.container, scene.endpoint), 1);
    await waitForStatus(t.container, ok[0].id, ['success']);

    // A second destination fails every time: 4 attempts (FAST_RETRIES), 3 retries, then the dead-letter queue.
    const failing = await createScene(t.container);
    const failingReceiver = await startReceiver();
    failingReceiver.respond = () => ({ status: 500, body: 'no' });
    try {
      await failing.destination(failingReceiver.url);
      const bad = await waitForDeliveries(t.container, await insertEvent(t.container, failing.endpoint), 1);
      await waitForStatus(t.container, bad[0].id, ['failed']);
    } finally {
      await failingReceiver.close();
    }

    // The backlog gauges are cached for 5 s: wait for a read taken after the dead letter.
    let after = await scrape();
    while (series(after, 'relay_delivery_dead_letters') < 1) {
      await new Promise((r) => setTimeout(r, 500));
      after = await scrape();
    }
    const moved = (name: string, labels: Record<string, string>) => series(after, name, labels) - series(before, name, labels);
    expect(moved('relay_delivery_attempts_total', { ...webhook, outcome: 'delivered' })).toBe(1);
    expect(moved('relay_delivery_attempts_total', { ...webhook, outcome: 'retrying' })).toBe(3);
    expect(moved('relay_delivery_attempts_total', { ...webhook, outcome: 'failed' })).toBe(1);
    expect(moved('relay_delivery_send_seconds_count', webhook)).toBe(5);
    expect(moved('relay_delivery_ingest_to_first_attempt_seconds_count', webhook)).toBe(2);
    expect(moved('relay_delivery_retries_scheduled_total', webhook)).toBe(3);
    expect(series(after, 'relay_delivery_dead_letters')).toBe(1);
    expect(series(after, 'relay_outbox_depth')).toBe(0);
    expect(series(after, 'relay_deliveries_queued')).toBe(0);
    expect(after).toContain('relay_outbox_oldest_undelivered_seconds 0');

    // PostgreSQL away: /metrics is still served, the gauges keep their last value (a 0 would resolve alerts).
    trackDeliveryBacklog(() => ({ raw: () => Promise.reject(new Error('connection refused')) }) as never);
    try {
      const res = await fetch(`http://127.0.0.1:${metrics.port}/metrics`);
      expect(res.status).toBe(200);
      expect(series(await res.text(), 'relay_delivery_dead_letters')).toBe(1);
    } finally {
      trackDeliveryBacklog(() => stack.t.container.orm.em.getConnection().getKnex());
    }
  });
});

describe('backlog: more events than delivery drains', () => {
  it('keeps accepting, starts at most maxUnattempted deliveries, oldest first, and reports the backlog', async () => {
    const t = await createTestContainer();
    const receiver = await startReceiver();
    // No worker yet: started workflows wait, as when delivery drains slower than ingress accepts.
    const dispatcher = new DeliveryDispatcher(t.container, { pollIntervalMs: 50, maxUnattempted: 5 });
    try {
      await dispatcher.start();
      const scene = await createScene(t.container);
      await scene.destination(receiver.url);
      const eventIds: string[] = [];
      for (let i = 0; i < 20; i++) eventIds.push(await insertEvent(t.container, scene.endpoint, { payload: { n: i } }));

      const started = async () =>
        (await sql<{ event_id: string }>(t.container, 'select event_id from deliveries where workflow_started_at is not null order by event_id')).map((r) => r.event_id);
      while ((await started()).length < 5) await new Promise((r) => setTimeout(r, 50));
      // Many dispatcher passes later (50 ms poll, 100 ms window re-check), the window still holds.
      await new Promise((r) => setTimeout(r, 1500));
      expect(await started()).toEqual(eventIds.slice(0, 5));

      const backlog = await readDeliveryBacklog(t.container.orm.em.getConnection().getKnex());
      // Fanned out at once (delivery rows are the backlog now); only the window's 5 are started.
      expect(backlog).toMatchObject({ outboxDepth: 0, queuedDeliveries: 20, deadLetters: 0 });
      expect(backlog.oldestUndeliveredSeconds).toBeGreaterThan(0);

      // A worker drains the window; the dispatcher then claims the rest, in arrival order.
      const worker = await startRelayWorker(t.container);
      try {
        while (receiver.requests.length < 20) await new Promise((r) => setTimeout(r, 100));
      } finally {
        await dispatcher.stop();
        await worker.stop();
      }
      const attempted = await sql<{ event_id: string }>(t.container, 'select event_id from deliveries order by workflow_started_at, event_id');
      expect(attempted.map((r) => r.event_id)).toEqual(eventIds);
      expect(await readDeliveryBacklog(t.container.orm.em.getConnection().getKnex())).toMatchObject({ outboxDepth: 0, queuedDeliveries: 0 });
    } finally {
      await dispatcher.stop();
      await receiver.close();
      await t.close();
    }
  });
});
