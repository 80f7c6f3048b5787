import { insertEvent } from '../support/factories';
import { createTestContainer, type TestContainer } from '../support/test-env';
import { attemptsOf, createScene, waitForDeliveries, waitForStatus, workflowResult } from './harness';
import { type Receiver, startReceiver } from './receiver';
import { startWorkerChild, type WorkerChild } from './worker-child';

describe('a worker killed with SIGKILL while a delivery waits for its retry', () => {
  let t: TestContainer;
  let receiver: Receiver;
  const workers: WorkerChild[] = [];

  beforeAll(async () => {
    t = await createTestContainer();
    receiver = await startReceiver();
  });

  afterAll(async () => {
    for (const w of workers) await w.kill('SIGKILL');
    await receiver?.close();
    await t?.close();
  });

  it('resumes in a new worker and completes, with exactly one record per attempt', async () => {
    const start = () =>
      startWorkerChild({ databaseUrl: t.db.url, taskQueue: t.container.config.TEMPORAL_TASK_QUEUE }).then((w) => {
        workers.push(w);
        return w;
      });
    receiver.respond = (_req, i) => (i === 0 ? { status: 502, body: 'not yet' } : { status: 200, body: 'ok' });
    const scene = await createScene(t.container);
    await scene.destination(receiver.url, { retryPolicy: { max_attempts: 3, backoff: [4] } });

    const first = await start();
    const eventId = await insertEvent(t.container, scene.endpoint);
    const [delivery] = await waitForDeliveries(t.container, eventId, 1);
    await waitForStatus(t.container, delivery.id, ['retrying']);
    await first.kill('SIGKILL');
    expect(first.child.signalCode).toBe('SIGKILL');

    await start();
    expect(await workflowResult(t.container, delivery.id)).toBe('success');
    const attempts = await attemptsOf(t.container, delivery.id);
    expect(attempts.map((a) => [a.attempt_number, a.status, a.status_code])).toEqual([
      [1, 'retrying', 502],
      [2, 'success', 200],
    ]);
    expect(receiver.requests).toHaveLength(2);
  }, 120_000);
});
