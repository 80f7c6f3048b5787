import fs from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { cancelDelivery } from '../../src/deliveries/delivery-operations.service';
import { type ApiServer, startApiServer } from '../../src/http/server';
import { closeHttpAgents } from '../../src/sending/http-client';
import { deliveryWorkflowId, startDeliveryWorkflow } from '../../src/temporal/delivery-workflows';
import { type RelayWorker, startRelayWorker } from '../../src/worker/worker';
import { type Listener, listen, report, startSession } from '../cli/tunnel-client';
import { tokenFor } from '../support/api';
import { insertDelivery } from '../support/delivery-fixtures';
import { insertEvent } from '../support/factories';
import { createTestContainer, type TestContainer } from '../support/test-env';
import { attemptsOf, createScene, type Scene, sql, workflowResult } from './harness';
import { type Receiver, startReceiver } from './receiver';

/**
 * A delivery's workflow history stays bounded however long a receiver keeps it waiting: past its history limit the
 * workflow continues as new, carrying its attempt number, wait counters and budget, and the cancel and cliAnswer
 * signals reach the new run. The limit is lowered here (a workflow input), so a few waits cross it. Real PostgreSQL,
 * Temporal server and worker; the workflows are started as the dispatcher starts them (no dispatcher runs).
 */
describe('continue-as-new keeps a delivery going (real PostgreSQL, Temporal server and worker)', () => {
  let t: TestContainer;
  let worker: RelayWorker;
  let api: ApiServer;
  let receiver: Receiver;
  let scene: Scene;
  let listener: Listener | null = null;
  const HISTORY_LIMIT = 30;

  beforeAll(async () => {
    t = await createTestContainer({ RELAY_DELIVERY_TIMEOUT_MS: '2000' });
    worker = await startRelayWorker(t.container);
    api = await startApiServer(t.container, 0, '127.0.0.1');
    receiver = await startReceiver();
  });

  afterAll(async () => {
    await api?.close();
    await worker?.stop();
    await receiver?.close();
    await closeHttpAgents();
    await t?.close();
  });

  beforeEach(async () => {
    receiver.requests.length = 0;
    scene = await createScene(t.container);
  });

  afterEach(async () => {
    await listener?.close();
    listener = null;
  });

  const client = () => t.container.temporal;

  /** An event and its delivery to `destinationId`, its workflow started with the lowered history limit; returns the delivery id and the first run's id. */
  async function startDelivery(destinationId: string, historyEventLimit = HISTORY_LIMIT): Promise<{ deliveryId: string; eventId: string; firstRunId: string }> {
    const eventId = await insertEvent(t.container, scene.endpoint, { eventType: 'order.paid' });
    const { deliveryId } = await insertDelivery(t.container, { eventId, destinationId });
    await startDeliveryWorkflow(
      client(),
      { taskQueue: t.container.config.TEMPORAL_TASK_QUEUE, attemptTimeoutMs: t.container.config.RELAY_DELIVERY_TIMEOUT_MS, historyEventLimit },
      { deliveryId, eventId, destinationId, projectId: scene.project.id, endpointSlug: scene.endpoint.slug, eventType: 'order.paid' },
    );
    const { runId } = await client().workflow.getHandle(deliveryWorkflowId(deliveryId)).describe();
    return { deliveryId, eventId, firstRunId: runId };
  }

  async function runStatus(deliveryId: string, runId: string): Promise<string> {
    return (await client().workflow.getHandle(deliveryWorkflowId(deliveryId), runId).describe()).status.name;
  }

  async function until(what: string, check: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('a delivery kept waiting past the limit continues as new, numbering on, keeps its search attributes and succeeds; every run replays', async () => {
    // Six 503s asking for a second each (waited out: a minute-long schedule), then a 200.
    receiver.respond = (_req, i) => (i < 6 ? { status: 503, headers: { 'retry-after': '1' }, body: 'busy' } : { status: 200, body: 'ok' });
    const destination = await scene.destination(receiver.url, { retryPolicy: { max_attempts: 2, backoff: [60] } });
    const { deliveryId, eventId, firstRunId } = await startDelivery(destination.id);

    expect(await workflowResult(t.container, deliveryId)).toBe('success');
    expect(await runStatus(deliveryId, firstRunId)).toBe('CONTINUED_AS_NEW');
    const latest = await client().workflow.getHandle(deliveryWorkflowId(deliveryId)).describe();
    expect(latest.runId).not.toBe(firstRunId);
    // The search attributes came along, the status as it stood.
    expect(latest.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value]).sort()).toEqual(
      expect.arrayContaining([
        ['RelayDeliveryStatus', 'success'],
        ['RelayEventId', eventId],
        ['RelayDestinationId', destination.id],
      ]),
    );

    const attempts = await attemptsOf(t.container, deliveryId);
    expect(attempts.map((a) => [a.attempt_number, a.status])).toEqual([
      ...[1, 2, 3, 4, 5, 6].map((n) => [n, 'rate_limited']),
      [7, 'success'],
    ]);
    expect(receiver.requests).toHaveLength(7);

    // Each run's history replays without a divergence, and none is longer than the limit and one attempt more.
    const runIds = [firstRunId];
    for (const runId of runIds) {
      const history = await client().workflow.getHandle(deliveryWorkflowId(deliveryId), runId).fetchHistory();
      expect(history.events!.length).toBeLessThan(HISTORY_LIMIT + 12);
      await expect(Worker.runReplayHistory({ workflowsPath: require.resolve('../../workflows') }, history)).resolves.toBeUndefined();
      const next = history.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
      if (next) runIds.push(next);
    }
    expect(runIds.length).toBeGreaterThan(1);
  });

  it('a cancel reaches a run that continued as new', async () => {
    receiver.respond = () => ({ status: 503, headers: { 'retry-after': '1' }, body: 'busy' });
    const destination = await scene.destination(receiver.url, { retryPolicy: { max_attempts: 2, backoff: [3600] } });
    const { deliveryId, firstRunId } = await startDelivery(destination.id);
    await until('a second run', async () => (await runStatus(deliveryId, firstRunId)) === 'CONTINUED_AS_NEW');

    await cancelDelivery(scene.ctx(), deliveryId);
    expect(await workflowResult(t.container, deliveryId)).toBe('canceled');
    const [delivery] = await sql<{ status: string }>(t.container, 'select status from deliveries where id = ?', [deliveryId]);
    expect(delivery.status).toBe('canceled');
    expect((await attemptsOf(t.container, deliveryId)).at(-1)!.status).toBe('canceled');
  });

  it("a CLI's answer reaches a run that continued as new", async () => {
    const token = await tokenFor(t.container, scene.user.id);
    const { destinationId } = await startSession(api.url, token, { machine: 'laptop', sourceSlugs: [scene.endpoint.slug] });
    listener = await listen(api.url, token, t.container, destinationId);
    // One attempt's history (the forward, its wait, its record, the backoff) is past this limit.
    const { deliveryId, firstRunId } = await startDelivery(destinationId, 10);

    // The first forward goes unanswered: the attempt times out (2 s) and its retry comes after the limit is crossed.
    const unanswered = await listener.next();
    expect(unanswered.attemptNumber).toBe(1);
    const second = await listener.next(20_000);
    expect(second.attemptNumber).toBe(2);
    expect(await runStatus(deliveryId, firstRunId)).toBe('CONTINUED_AS_NEW');
    expect(await report(api.url, token, { forwardId: second.id, statusCode: 200, responseHeaders: {}, responseBody: 'ok', latencyMs: 3 })).toBe(true);

    expect(await workflowResult(t.container, deliveryId)).toBe('success');
    expect((await attemptsOf(t.container, deliveryId)).map((a) => [a.attempt_number, a.status])).toEqual([
      [1, 'retrying'],
      [2, 'success'],
    ]);
  });
});

describe('a workflow already running when this version is deployed carries on', () => {
  it('replays a history in which an answer was waited out without a record (503 with Retry-After, 500, 200)', async () => {
    // Recorded by the workflow before waited-out answers became `rate_limited` attempts (its markers hold the outcomes then).
    const stored = JSON.parse(fs.readFileSync(path.join(__dirname, 'histories', 'rate-limited-unrecorded.json'), 'utf8'));
    const history = temporal.api.history.v1.History.fromObject(stored);
    await expect(Worker.runReplayHistory({ workflowsPath: require.resolve('../../workflows') }, history)).resolves.toBeUndefined();
  });
});
