import { createDeliveryActivities } from '../../activities/delivery.activities';
import { uuidv7 } from '../../src/common/ids';
import { fanOutEvents } from '../../src/deliveries/fan-out';
import { cancelDelivery, listDeadLetters, replayDeadLetters, replayEvent } from '../../src/deliveries/delivery-operations.service';
import { listAttempts, listAttemptsQuery } from '../../src/deliveries/delivery-query.service';
import { deliveryWorkflowId, startDeliveryWorkflow } from '../../src/temporal/delivery-workflows';
import { Worker } from '@temporalio/worker';
import { insertEvent } from '../support/factories';
import type { TestContainer } from '../support/test-env';
import {
  attemptsOf,
  createScene,
  deliveriesOf,
  type DeliveryStack,
  resetReceiver,
  type Scene,
  sql,
  startDeliveryStack,
  waitForDeliveries,
  waitForStatus,
  workflowResult,
} from './harness';
import type { Receiver } from './receiver';

const ms = (timestamp: Date | string | null) => new Date(timestamp ?? NaN).getTime();

describe('durable delivery (real PostgreSQL, Temporal server and worker)', () => {
  let stack: DeliveryStack;
  let t: TestContainer;
  let receiver: Receiver;
  let scene: Scene;

  beforeAll(async () => {
    stack = await startDeliveryStack();
    ({ t, receiver } = stack);
  });

  afterAll(() => stack?.close());

  beforeEach(async () => {
    resetReceiver(receiver);
    scene = await createScene(t.container);
  });

  it('fans out to linked, active destinations that accept the type; blocked ones leave no record', async () => {
    const all = await scene.destination(receiver.url);
    const typed = await scene.destination(receiver.url, { eventTypes: ['push'] });
    await scene.destination(receiver.url, { eventTypes: ['issue'] });
    await scene.destination(receiver.url, { isActive: false });

    const eventId = await insertEvent(t.container, scene.endpoint, { eventType: 'push', payload: { ref: 'main' } });
    const deliveries = await waitForDeliveries(t.container, eventId, 2);
    expect(deliveries.map((d) => d.destination_id).sort()).toEqual([all.id, typed.id].sort());
    // Ids made by PostgreSQL are UUIDv7 too (time-ordered: the id is the pagination cursor).
    for (const d of deliveries) expect(d.id > eventId && /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab]/.test(d.id)).toBe(true);
    for (const d of deliveries) expect(await workflowResult(t.container, d.id)).toBe('success');

    expect(receiver.requests).toHaveLength(2);
    expect(JSON.parse(receiver.requests[0].body)).toEqual({ ref: 'main' });
    expect(receiver.requests[0].headers['x-service-event-id']).toBe(eventId);
    expect(receiver.requests[0].headers['x-service-endpoint-id']).toBe(scene.endpoint.id);
    const [event] = await sql<{ dispatched_at: Date | null }>(t.container, 'select dispatched_at from events where id = ?', [eventId]);
    expect(event.dispatched_at).not.toBeNull();
    const [attempt] = await attemptsOf(t.container, deliveries[0].id);
    expect(attempt).toMatchObject({ attempt_number: 1, status: 'success', status_code: 200, response_body: 'ok', error: null });
    expect(attempt.payload_sent).toEqual({ ref: 'main' });
    expect(attempt.latency_ms).toEqual(expect.any(Number));
  });

  it('creates nothing for filtered events (but makes them searchable) and never fans an event out twice', async () => {
    await scene.destination(receiver.url);
    const filtered = await insertEvent(t.container, scene.endpoint, { status: 'filtered' });
    const received = await insertEvent(t.container, scene.endpoint);
    const [delivery] = await waitForDeliveries(t.container, received, 1);
    await workflowResult(t.container, delivery.id);
    // Two more passes racing each other find nothing left to claim.
    const knex = t.container.orm.em.getConnection().getKnex();
    const passes = await Promise.all([fanOutEvents(knex, 10), fanOutEvents(knex, 10)]);
    expect(passes.map((p) => p.deliveries)).toEqual([0, 0]);
    expect(await deliveriesOf(t.container, received)).toHaveLength(1);
    expect(await deliveriesOf(t.container, filtered)).toHaveLength(0);
    // Both got their search row in the fan-out (not on the ingress INSERT): payload as jsonb, words of payload and headers.
    const search = await sql<{ event_id: string; doc: unknown; words: string }>(
      t.container,
      'select event_id, doc, words::text as words from event_search where event_id in (?, ?) order by event_id',
      [filtered, received],
    );
    expect(search).toEqual([
      { event_id: filtered, doc: { hello: 'world' }, words: expect.stringContaining("'hello'") },
      { event_id: received, doc: { hello: 'world' }, words: expect.stringContaining("'json'") },
    ]);
  });

  it('refuses a second workflow for the same delivery', async () => {
    await scene.destination(receiver.url);
    const eventId = await insertEvent(t.container, scene.endpoint);
    const [delivery] = await waitForDeliveries(t.container, eventId, 1);
    await workflowResult(t.container, delivery.id);
    const again = await startDeliveryWorkflow(
      t.container.temporal,
      { taskQueue: t.container.config.TEMPORAL_TASK_QUEUE, attemptTimeoutMs: 1000 },
      { deliveryId: delivery.id, eventId, destinationId: delivery.destination_id, projectId: scene.project.id, endpointSlug: 'x', eventType: '' },
    );
    expect(again).toBe('already_started');
    expect(receiver.requests.filter((r) => r.headers['x-service-event-id'] === eventId)).toHaveLength(1);
  });

  it('an attempt run twice (an activity retried after a crash) sends and records once', async () => {
    const destination = await scene.destination(receiver.url);
    const eventId = await insertEvent(t.container, scene.endpoint);
    const [dispatched] = await waitForDeliveries(t.container, eventId, 1);
    await workflowResult(t.container, dispatched.id);
    const deliveryId = uuidv7();
    await sql(t.container, 'insert into deliveries (id, event_id, destination_id, endpoint_id, project_id, workflow_started_at) values (?, ?, ?, ?, ?, now())', [
      deliveryId, eventId, destination.id, scene.endpoint.id, scene.project.id,
    ]);
    const { attemptDelivery } = createDeliveryActivities(t.container);
    expect(await attemptDelivery({ deliveryId, attemptNumber: 1 })).toEqual({ kind: 'success' });
    expect(await attemptDelivery({ deliveryId, attemptNumber: 1 })).toEqual({ kind: 'success' });
    expect(receiver.requests.filter((r) => r.headers['x-service-delivery-id'] === deliveryId)).toHaveLength(1);
    expect(await attemptsOf(t.container, deliveryId)).toHaveLength(1);
  });

  it('retries a receiver that fails twice, recording each attempt, then succeeds', async () => {
    receiver.respond = (_req, i) => (i < 2 ? { status: 503, body: 'down' } : { status: 200, body: 'ok' });
    await scene.destination(receiver.url);
    const eventId = await insertEvent(t.container, scene.endpoint);
    const [delivery] = await waitForDeliveries(t.container, eventId, 1);
    expect(await workflowResult(t.container, delivery.id)).toBe('success');

    const attempts = await attemptsOf(t.container, delivery.id);
    expect(attempts.map((a) => [a.attempt_number, a.status, a.status_code])).toEqual([
      [1, 'retrying', 503],
      [2, 'retrying', 503],
      [3, 'success', 200],
    ]);
    // Each retry waited for the recorded next_retry_at (1 s after the failure it follows).
    for (const n of [0, 1]) {
      expect(ms(attempts[n].next_retry_at) - ms(attempts[n].created_at)).toBeGreaterThan(500);
      expect(ms(attempts[n + 1].created_at)).toBeGreaterThanOrEqual(ms(attempts[n].next_retry_at) - 50);
    }
    expect(attempts[0].error).toMatch(/503/);
    expect(attempts[0].response_body).toBe('down');
    expect(attempts[2].next_retry_at).toBeNull();
    const [done] = await deliveriesOf(t.container, eventId);
    expect(done).toMatchObject({ status: 'success', attempt_count: 3, dead_lettered_at: null });
    expect(receiver.requests).toHaveLength(3);
    // The workflow code is deterministic: its recorded history replays without a divergence.
    const history = await t.container.temporal.workflow.getHandle(deliveryWorkflowId(delivery.id)).fetchHistory();
    await expect(Worker.runReplayHistory({ workflowsPath: require.resolve('../../workflows') }, history)).resolves.toBeUndefined();
  });

  it('dead-letters after the last attempt, and a replay from the dead-letter queue succeeds', async () => {
    receiver.respond = () => ({ status: 500, body: 'broken' });
    const destination = await scene.destination(receiver.url, { retryPolicy: { max_attempts: 2, backoff: [1] } });
    const eventId = await insertEvent(t.container, scene.endpoint);
    const [delivery] = await waitForDeliveries(t.container, eventId, 1);
    expect(await workflowResult(t.container, delivery.id)).toBe('failed');
    expect((await attemptsOf(t.container, delivery.id)).map((a) => a.status)).toEqual(['retrying', 'failed']);
    const [failed] = await deliveriesOf(t.container, eventId);
    expect(failed.status).toBe('failed');
    expect(failed.dead_lettered_at).not.toBeNull();

    const queue = await listDeadLetters(scene.ctx(), { destination_id: destination.id });
    expect(queue.data.map((d) => d.id)).toEqual([delivery.id]);

    receiver.respond = () => ({ status: 200, body: 'ok' });
    const [replay] = await replayDeadLetters(scene.ctx(), { delivery_ids: [delivery.id] });
    expect(replay.replayOfId).toBe(delivery.id);
    expect(await workflowResult(t.container, replay.id)).toBe('success');
    expect((await attemptsOf(t.container, replay.id)).map((a) => [a.attempt_number, a.status])).toEqual([[1, 'success']]);
    expect((await listDeadLetters(scene.ctx(), {})).data).toHaveLength(0);
    await expect(replayDeadLetters(scene.ctx(), { delivery_ids: [delivery.id] })).rejects.toMatchObject({ code: 'not_dead_lettered' });
  });

  it('cancels a delivery waiting for its retry: the workflow ends and the attempt becomes canceled', async () => {
    receiver.respond = () => ({ status: 500 });
    await scene.destination(receiver.url, { retryPolicy: { max_attempts: 3, backoff: [3600] } });
    const eventId = await insertEvent(t.container, scene.endpoint);
    const [delivery] = await waitForDeliveries(t.container, eventId, 1);
    await waitForStatus(t.container, delivery.id, ['retrying']);

    const canceled = await cancelDelivery(scene.ctx(), delivery.id);
    expect(canceled.status).toBe('canceled');
    expect(await workflowResult(t.container, delivery.id)).toBe('canceled');
    expect((await attemptsOf(t.container, delivery.id)).map((a) => [a.status, a.next_retry_at])).toEqual([['canceled', null]]);
    await expect(cancelDelivery(scene.ctx(), delivery.id)).rejects.toMatchObject({ code: 'delivery_not_cancelable' });
    const page = await listAttempts(scene.ctx(), listAttemptsQuery.parse({ event_id: eventId, status: 'canceled' }));
    expect(page.data).toHaveLength(1);
  });

  it('a cancel from the Temporal UI (workflow cancellation) is recorded as a canceled delivery', async () => {
    receiver.respond = () => ({ status: 500 });
    await scene.destination(receiver.url, { retryPolicy: { max_attempts: 3, backoff: [3600] } });
    const eventId = await insertEvent(t.container, scene.endpoint);
    const [delivery] = await waitForDeliveries(t.container, eventId, 1);
    await waitForStatus(t.container, delivery.id, ['retrying']);
    await t.container.temporal.workflow.getHandle(deliveryWorkflowId(delivery.id)).cancel();
    expect(await workflowResult(t.container, delivery.id)).toBe('canceled');
    expect((await deliveriesOf(t.container, eventId))[0].status).toBe('canceled');
    expect((await attemptsOf(t.container, delivery.id)).map((a) => a.status)).toEqual(['canceled']);
  });

  it('a replay of the event supersedes a pending retry and delivers with the current configuration', async () => {
    receiver.respond = (_req, i) => (i === 0 ? { status: 500 } : { status: 200 });
    await scene.destination(receiver.url, { retryPolicy: { max_attempts: 3, backoff: [3600] } });
    const eventId = await insertEvent(t.container, scene.endpoint);
    const [first] = await waitForDeliveries(t.container, eventId, 1);
    await waitForStatus(t.container, first.id, ['retrying']);

    const replays = await replayEvent(scene.ctx(), eventId);
    expect(replays).toHaveLength(1);
    expect(replays[0].replayOfId).toBe(first.id);
    expect(await workflowResult(t.container, replays[0].id)).toBe('success');
    expect(await workflowResult(t.container, first.id)).toBe('canceled');
    const rows = await deliveriesOf(t.container, eventId);
    expect(rows.map((r) => r.status)).toEqual(['canceled', 'success']);
    expect((await attemptsOf(t.container, replays[0].id)).map((a) => a.attempt_number)).toEqual([1]);
  });

  it('lets a user find a delivery in the Temporal UI by its search attributes', async () => {
    await scene.destination(receiver.url);
    const eventId = await insertEvent(t.container, scene.endpoint, { eventType: 'push' });
    const [delivery] = await waitForDeliveries(t.container, eventId, 1);
    await workflowResult(t.container, delivery.id);
    const query = `RelayEventId = "${eventId}" AND RelayProjectId = "${scene.project.id}" AND RelayEventType = "push" AND RelayEndpointSlug = "${scene.endpoint.slug}" AND RelayDeliveryStatus = "success"`;
    let found: string[] = [];
    while (found.length === 0) {
      found = [];
      for await (const wf of t.container.temporal.workflow.list({ query })) found.push(wf.workflowId);
      if (found.length === 0) await new Promise((r) => setTimeout(r, 200));
    }
    expect(found).toEqual([deliveryWorkflowId(delivery.id)]);
  });
});
