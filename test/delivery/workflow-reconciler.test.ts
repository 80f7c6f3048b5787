import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { deliveryWorkflow } from '../../workflows/delivery.workflow';
import { uuidv7 } from '../../src/common/ids';
import { getDelivery } from '../../src/deliveries/delivery-query.service';
import { WorkflowReconciler } from '../../src/deliveries/workflow-reconciler';
import { DEV_SERVER_TUNING, findTemporalCli, startTemporalDevServer } from '../../src/launcher/temporal';
import { deliveryWorkflowsReconciled } from '../../src/metrics/metrics';
import { deliveryWorkflowId } from '../../src/temporal/delivery-workflows';
import { createDestination, insertEvent } from '../support/factories';
import { freePort } from '../support/free-port';
import type { TestContainer } from '../support/test-env';
import { attemptsOf, createScene, type DeliveryStack, FAST_RETRIES, type Scene, sql, startDeliveryStack, waitForDeliveries, waitForStatus } from './harness';
import type { Receiver } from './receiver';

/** relay_delivery_workflows_reconciled_total{action, reason} in this process. */
async function reconciled(action: string, reason: string): Promise<number> {
  const { values } = await deliveryWorkflowsReconciled.get();
  return values.find((v) => v.labels.action === action && v.labels.reason === reason)?.value ?? 0;
}

/**
 * No delivery without a workflow: a delivery whose Temporal workflow is terminated, times out or is lost (deleted,
 * as with its namespace) reaches an outcome, with the reason on the delivery, through the reconciler loop a worker
 * process runs (here every 300 ms), the real worker and the dev server.
 */
describe('a delivery whose workflow ended without an outcome', () => {
  let stack: DeliveryStack;
  let t: TestContainer;
  let receiver: Receiver;
  let scene: Scene;

  beforeAll(async () => {
    stack = await startDeliveryStack({ reconciler: { intervalMs: 300, minAgeMs: 1000, settleMs: 1500 } });
    ({ t, receiver } = stack);
    // Each delivery's first request fails (500), every later one succeeds.
    const seen = new Set<string>();
    receiver.respond = (req) => {
      const id = String(req.headers['x-service-delivery-id']);
      if (seen.has(id)) return { status: 200, body: 'ok' };
      seen.add(id);
      return { status: 500, body: 'first time fails' };
    };
  });
  afterAll(() => stack?.close());
  beforeEach(async () => (scene = await createScene(t.container)));

  const workflow = (deliveryId: string) => t.container.temporal.workflow.getHandle(deliveryWorkflowId(deliveryId));

  /** An event to a destination whose first answer fails: the delivery waits for its retry, its workflow running. */
  async function retryingDelivery(backoffSeconds: number): Promise<string> {
    await scene.destination(receiver.url, { retryPolicy: { max_attempts: 3, backoff: [backoffSeconds] } });
    const eventId = await insertEvent(t.container, scene.endpoint);
    const [delivery] = await waitForDeliveries(t.container, eventId, 1);
    await waitForStatus(t.container, delivery.id, ['retrying']);
    return delivery.id;
  }

  it('terminated from the Temporal UI or CLI: dead-lettered with the reason as its last attempt and its note', async () => {
    const deliveryId = await retryingDelivery(3600);
    const counted = await reconciled('dead_lettered', 'terminated');
    await workflow(deliveryId).terminate('an operator stopped it');

    const row = await waitForStatus(t.container, deliveryId, ['failed', 'success', 'canceled']);
    expect(row).toMatchObject({ status: 'failed', next_retry_at: null });
    expect(row.dead_lettered_at).not.toBeNull();
    const attempts = await attemptsOf(t.container, deliveryId);
    expect(attempts.map((a) => [a.attempt_number, a.status, a.status_code])).toEqual([[1, 'retrying', 500], [2, 'failed', null]]);
    expect(attempts[1].error).toMatch(/^workflow terminated: an operator stopped it \(by .+\)$/);
    const view = await getDelivery(scene.ctx(), deliveryId);
    expect(view).toMatchObject({ status: 'failed', attempt_count: 2 });
    expect(view.note).toBe(`Its Temporal workflow ended without recording an outcome (${attempts[1].error}): dead-lettered.`);
    expect(await reconciled('dead_lettered', 'terminated')).toBe(counted + 1);
  });

  it("ended by Temporal's run-time limit: dead-lettered with the limit it reached", async () => {
    // Started here as the dispatcher would, but with a 3 s run timeout: the first attempt fails, the retry is an hour away.
    const destination = await createDestination(t.container, t.container.orm.em.fork(), scene.project, { webhookUrl: receiver.url, retryPolicy: { max_attempts: 3, backoff: [3600] } });
    const eventId = await insertEvent(t.container, scene.endpoint);
    const deliveryId = uuidv7();
    const counted = await reconciled('dead_lettered', 'timed_out');
    await sql(t.container, 'insert into deliveries (id, event_id, destination_id, endpoint_id, project_id, workflow_started_at) values (?, ?, ?, ?, ?, now())', [
      deliveryId, eventId, destination.id, scene.endpoint.id, scene.project.id,
    ]);
    await t.container.temporal.workflow.start<typeof deliveryWorkflow>('deliveryWorkflow', {
      taskQueue: t.container.config.TEMPORAL_TASK_QUEUE,
      workflowId: deliveryWorkflowId(deliveryId),
      args: [{ deliveryId, attemptTimeoutMs: 5000 }],
      workflowRunTimeout: '3 seconds',
    });

    const row = await waitForStatus(t.container, deliveryId, ['failed', 'success', 'canceled']);
    expect(row.status).toBe('failed');
    expect(row.dead_lettered_at).not.toBeNull();
    const attempts = await attemptsOf(t.container, deliveryId);
    expect(attempts.map((a) => [a.attempt_number, a.status, a.status_code])).toEqual([[1, 'retrying', 500], [2, 'failed', null]]);
    expect(attempts[1].error).toBe('workflow timed out: it reached its Temporal time limit (run timeout 3 s)');
    expect((await workflow(deliveryId).describe()).status.name).toBe('TIMED_OUT');
    expect(await reconciled('dead_lettered', 'timed_out')).toBe(counted + 1);
  });

  it('lost (deleted from Temporal, as with its namespace): started again, its attempts kept, and delivered', async () => {
    const deliveryId = await retryingDelivery(4);
    const counted = await reconciled('restarted', 'not_found');
    await t.container.temporal.workflowService.deleteWorkflowExecution({
      namespace: t.container.config.TEMPORAL_NAMESPACE,
      workflowExecution: { workflowId: deliveryWorkflowId(deliveryId) },
    });

    const row = await waitForStatus(t.container, deliveryId, ['success', 'failed', 'canceled']);
    expect(row.status).toBe('success');
    const attempts = await attemptsOf(t.container, deliveryId);
    expect(attempts.map((a) => [a.attempt_number, a.status, a.status_code])).toEqual([[1, 'retrying', 500], [2, 'success', 200]]);
    expect((await getDelivery(scene.ctx(), deliveryId)).note).toMatch(/^Its Temporal workflow was not found on \S+ \(lost, as with its namespace\): started again, its attempts kept\.$/);
    expect(receiver.requests.filter((r) => r.headers['x-service-delivery-id'] === deliveryId)).toHaveLength(2);
    expect(await reconciled('restarted', 'not_found')).toBe(counted + 1);
  });

  it('is not taken for lost while the dispatcher may still be starting it', async () => {
    // A retrying delivery (the dispatcher's sweep leaves those alone) whose workflow was "just started": no workflow yet.
    const destination = await createDestination(t.container, t.container.orm.em.fork(), scene.project, { webhookUrl: receiver.url, retryPolicy: FAST_RETRIES });
    const eventId = await insertEvent(t.container, scene.endpoint);
    const deliveryId = uuidv7();
    await sql(
      t.container,
      `insert into deliveries (id, event_id, destination_id, endpoint_id, project_id, status, workflow_started_at, created_at)
       values (?, ?, ?, ?, ?, 'retrying', now() + interval '1 hour', now() - interval '1 hour')`,
      [deliveryId, eventId, destination.id, scene.endpoint.id, scene.project.id],
    );
    const reconciler = new WorkflowReconciler(t.container, { minAgeMs: 1000, settleMs: 0 });
    expect(await reconciler.pass()).toMatchObject({ restarted: 0, deadLettered: 0 });
    await expect(workflow(deliveryId).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect((await getDelivery(scene.ctx(), deliveryId)).note).toBeNull();

    // Started long enough ago and still no workflow: it is lost, and started again.
    await sql(t.container, "update deliveries set workflow_started_at = now() - interval '1 hour' where id = ?", [deliveryId]);
    const row = await waitForStatus(t.container, deliveryId, ['success', 'failed', 'canceled']);
    expect(row.status).toBe('success');
    expect((await getDelivery(scene.ctx(), deliveryId)).note).toMatch(/not found .* started again/);
  });
});

/**
 * Temporal's own history limit (a receiver that kept a workflow looping reached it in issue 36): here a dev server of
 * this test's own whose limit is 40 events, so a delivery retried every second reaches it within a few attempts.
 */
describe("a delivery whose workflow Temporal terminated at its history limit", () => {
  let temporal: Awaited<ReturnType<typeof startTemporalDevServer>>;
  let stack: DeliveryStack;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-temporal-history-limit-'));
    temporal = await startTemporalDevServer({
      cliPath: findTemporalCli(process.env.TEMPORAL_CLI_PATH),
      dbFile: path.join(dir, 'temporal.db'),
      port: await freePort(),
      uiPort: await freePort(),
      namespace: 'default',
      tuning: [...DEV_SERVER_TUNING, '--dynamic-config-value', 'limit.historyCount.warn=20', '--dynamic-config-value', 'limit.historyCount.error=40'],
    });
    stack = await startDeliveryStack({ env: { TEMPORAL_ADDRESS: temporal.url }, reconciler: { intervalMs: 300, minAgeMs: 1000, settleMs: 1500 } });
    stack.receiver.respond = () => ({ status: 500, body: 'down' });
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await temporal?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is dead-lettered with the limit Temporal gave as the reason, before its retries ran out', async () => {
    const { t, receiver } = stack;
    const scene = await createScene(t.container);
    await scene.destination(receiver.url, { retryPolicy: { max_attempts: 20, backoff: [1] } });
    const counted = await reconciled('dead_lettered', 'terminated');
    const eventId = await insertEvent(t.container, scene.endpoint);
    const [delivery] = await waitForDeliveries(t.container, eventId, 1);

    const row = await waitForStatus(t.container, delivery.id, ['failed', 'success', 'canceled']);
    expect(row.status).toBe('failed');
    const attempts = await attemptsOf(t.container, delivery.id);
    const last = attempts[attempts.length - 1];
    expect(attempts.length).toBeLessThan(20);
    expect({ status: last.status, status_code: last.status_code }).toEqual({ status: 'failed', status_code: null });
    expect(last.error).toMatch(/^workflow terminated: Workflow history count exceeds limit\./);
    expect((await t.container.temporal.workflow.getHandle(deliveryWorkflowId(delivery.id)).describe()).status.name).toBe('TERMINATED');
    expect(await reconciled('dead_lettered', 'terminated')).toBe(counted + 1);
  }, 90_000);
});
