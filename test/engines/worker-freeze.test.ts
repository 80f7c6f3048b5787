import { createScene, sql } from '../delivery/harness';
import { type Receiver, startReceiver } from '../delivery/receiver';
import { startWorkerChild, type WorkerChild } from '../delivery/worker-child';
import { insertEvent } from '../support/factories';
import { createTestContainer, type TestContainer } from '../support/test-env';

/**
 * Issue 20: after a 3-minute heap snapshot a worker once stayed up but took no workflow
 * task for 7 minutes, and said nothing. Here a real `relay worker` process is frozen
 * under a steady flow of events, then let go: it must deliver again within seconds, say
 * that it was paused, and every delivery must end in success.
 *
 * The freeze is SIGSTOP (every thread stops) by default; FREEZE_MODE=block blocks only the
 * main JavaScript thread (test/support/block-main-thread.cjs), the way a heap snapshot
 * does, while the SDK's native threads keep polling. FREEZE_SECONDS and FREEZE_RATE
 * (events/s) reproduce longer runs (docs/internals/delivery.md "A paused worker").
 */
const FREEZE_S = Number(process.env.FREEZE_SECONDS ?? 20);
const RATE = Number(process.env.FREEZE_RATE ?? 10);
const MODE = process.env.FREEZE_MODE ?? 'stop';
const BLOCKER = require.resolve('../support/block-main-thread.cjs');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a worker process frozen under traffic', () => {
  let t: TestContainer;
  let receiver: Receiver;
  let worker: WorkerChild | undefined;

  beforeAll(async () => {
    t = await createTestContainer();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    if (worker?.child.exitCode === null) worker.child.kill('SIGCONT');
    await worker?.kill('SIGKILL');
    await receiver?.close();
    await t?.close();
  });

  it('delivers again within seconds of being let go, logs the pause, and loses nothing', async () => {
    const scene = await createScene(t.container);
    await scene.destination(`${receiver.url}/hook`);
    worker = await startWorkerChild({
      databaseUrl: t.db.url,
      taskQueue: t.container.config.TEMPORAL_TASK_QUEUE,
      env: MODE === 'block' ? { NODE_OPTIONS: `--require ${BLOCKER}`, RELAY_TEST_BLOCK_MS: String(FREEZE_S * 1000) } : {},
    });
    const pid = worker.child.pid!;

    let flowing = true;
    let sent = 0;
    const flow = (async () => {
      while (flowing) {
        await insertEvent(t.container, scene.endpoint);
        sent += 1;
        await sleep(1000 / RATE);
      }
    })();
    const t0 = Date.now();
    const statuses = async () =>
      Object.fromEntries(
        (await sql<{ status: string; n: number }>(t.container, 'select status, count(*)::int as n from deliveries group by status')).map((r) => [r.status, r.n]),
      );
    const timeline: string[] = [];
    const note = async (what: string) =>
      timeline.push(`${((Date.now() - t0) / 1000).toFixed(1)}s ${what}: sent ${sent}, received ${receiver.requests.length}, ${JSON.stringify(await statuses())}`);

    await receiver.waitFor(5);
    await note('flowing');
    process.kill(pid, MODE === 'block' ? 'SIGUSR2' : 'SIGSTOP');
    await sleep(FREEZE_S * 1000);
    await note('frozen');
    const receivedAtRelease = receiver.requests.length;
    if (MODE !== 'block') process.kill(pid, 'SIGCONT');
    const released = Date.now();
    while (receiver.requests.length === receivedAtRelease && Date.now() - released < 120_000) await sleep(100);
    const resumedMs = Date.now() - released;
    await note(`first delivery after release in ${resumedMs} ms`);
    await sleep(5000);
    flowing = false;
    await flow;
    await note('traffic stopped');
    // Every event's delivery ends in success: nothing the freeze touched is lost or left hanging.
    const deadline = Date.now() + 180_000;
    let s = await statuses();
    while ((s.success ?? 0) < sent && Date.now() < deadline) {
      await sleep(1000);
      s = await statuses();
    }
    await note('settled');
    process.stderr.write(`worker freeze (${MODE} ${FREEZE_S} s, ${RATE} events/s):\n${timeline.join('\n')}\n`);

    expect(resumedMs).toBeLessThan(30_000);
    expect(s).toEqual({ success: sent });
    // The worker said it had been paused, and for how long; and did not mistake the pause for a stall.
    const paused = worker
      .output()
      .split('\n')
      .filter((l) => l.includes('did not run for'))
      .map((l) => (JSON.parse(l) as { pausedMs: number }).pausedMs);
    expect(paused).toHaveLength(1);
    expect(paused[0]).toBeGreaterThanOrEqual((FREEZE_S - 2) * 1000);
    expect(worker.output()).not.toContain('took none');
  }, 600_000);
});
