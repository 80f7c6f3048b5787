import { createContainer, type AppContainer } from '../../src/app/container';
import { NO_CLI_CONNECTED } from '../../src/cli-sessions/cli-forwarder';
import { createLogger } from '../../src/common/logger';
import { attemptsOf, waitForDeliveries, waitForStatus } from '../delivery/harness';
import { startWorkerChild, type WorkerChild } from '../delivery/worker-child';
import { tokenFor } from '../support/api';
import { createEndpoint, createWorkspace } from '../support/factories';
import { postSigned } from '../support/ingress-helpers';
import { eventually } from '../support/live-client';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestDatabase, type TestDatabase, testConfig, uniqueTaskQueue } from '../support/test-env';
import { listen, presenceRows, report, startSession } from './tunnel-client';

/**
 * Issue 9's deployment: two API processes and a worker process on one
 * database. The CLI's subscription is held by API A; the event arrives at
 * API B; the worker (a third process) makes the attempt; the CLI's answer
 * goes to B. The forward must still reach A, and the answer the worker.
 */
describe('the listen tunnel across processes', () => {
  let db: TestDatabase;
  let container: AppContainer;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let worker: WorkerChild;

  beforeAll(async () => {
    db = await createTestDatabase();
    const taskQueue = uniqueTaskQueue('cli');
    container = await createContainer(testConfig({ DATABASE_URL: db.url, TEMPORAL_TASK_QUEUE: taskQueue }), createLogger('silent'));
    [a, b, worker] = await Promise.all([
      startServiceProcess({ databaseUrl: db.url, command: 'api', taskQueue }),
      startServiceProcess({ databaseUrl: db.url, command: 'api', taskQueue }),
      startWorkerChild({ databaseUrl: db.url, taskQueue }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), worker?.kill('SIGINT')]);
    await container?.close();
    await db?.drop();
  });

  it('forwards through the API process holding the subscription and records the answer given to another one', async () => {
    const em = container.orm.em.fork();
    const ws = await createWorkspace(em);
    const { endpoint, signingSecret } = await createEndpoint(container, em, ws.project);
    const token = await tokenFor(container, ws.user.id);
    const { destinationId } = await startSession(b.baseUrl, token, { machine: 'two-apis', sourceSlugs: [endpoint.slug] });
    const cli = await listen(a.baseUrl, token, container, destinationId);
    try {
      const sent = await postSigned(b.baseUrl, endpoint.slug, signingSecret, { hello: 'across' });
      expect(sent.status).toBe(202);
      const forward = await cli.next(30_000);
      expect(forward).toMatchObject({ eventId: sent.body.event_id, attemptNumber: 1, body: JSON.stringify({ hello: 'across' }) });
      expect(await report(b.baseUrl, token, { forwardId: forward.id, statusCode: 204, latencyMs: 12 })).toBe(true);
      expect((await waitForStatus(container, forward.deliveryId, ['success', 'failed'])).status).toBe('success');
      expect((await attemptsOf(container, forward.deliveryId))[0]).toMatchObject({ status: 'success', status_code: 204, latency_ms: 12 });
    } finally {
      await cli.close();
    }

    // A's subscription is gone: its presence row with it, and the next event is stored, not forwarded.
    await eventually(async () => (await presenceRows(container, destinationId)) === 0);
    const later = await postSigned(b.baseUrl, endpoint.slug, signingSecret, { hello: 'nobody' });
    const [delivery] = await waitForDeliveries(container, later.body.event_id!, 1);
    expect((await waitForStatus(container, delivery.id, ['success', 'failed', 'skipped'])).status).toBe('skipped');
    expect((await attemptsOf(container, delivery.id))[0].error).toBe(NO_CLI_CONNECTED);
  });
});
