import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findTemporalCli, startTemporalDevServer } from '../../src/launcher/temporal';
import { insertEvent } from '../support/factories';
import { freePort } from '../support/free-port';
import { createTestContainer, TEST_SECRETS, type TestContainer, uniqueTaskQueue } from '../support/test-env';
import { createScene, sql, waitForStatus } from './harness';
import { type Receiver, startReceiver } from './receiver';

const REPO = path.resolve(__dirname, '..', '..');

/** Resolves once `check` holds (polls; the test's own timeout bounds it). */
async function until(check: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 200));
}

/**
 * docs/internals/delivery.md "When Temporal or PostgreSQL is away": `relay worker` started while Temporal is
 * down keeps retrying (one log line, not a stack trace per try), says not ready on its
 * `/readyz`, fans events out meanwhile, and delivers once a Temporal dev server starts on
 * that address a minute later, with no manual step.
 */
describe('relay worker outlives Temporal down at start', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-worker-waits-'));
  let t: TestContainer;
  let receiver: Receiver;
  let worker: ChildProcess | undefined;
  let temporal: Awaited<ReturnType<typeof startTemporalDevServer>> | undefined;
  let output = '';

  beforeAll(async () => {
    t = await createTestContainer();
    receiver = await startReceiver();
  });

  afterAll(async () => {
    if (worker && worker.exitCode === null) {
      const exited = new Promise((r) => worker!.once('exit', r));
      worker.kill('SIGTERM');
      await exited;
    }
    await temporal?.stop();
    await receiver?.close();
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('waits for Temporal, reports not ready meanwhile, and delivers a queued event once Temporal starts', async () => {
    const temporalPort = await freePort();
    const metricsPort = await freePort();
    worker = spawn(process.execPath, [path.join(REPO, 'bin', 'relay.js'), 'worker'], {
      cwd: REPO,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        DATABASE_URL: t.db.url,
        TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
        TEMPORAL_TASK_QUEUE: uniqueTaskQueue('waits'),
        RELAY_WORKER_METRICS_PORT: String(metricsPort),
        ...TEST_SECRETS,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    worker.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const readyz = async () => {
      const res = await fetch(`http://127.0.0.1:${metricsPort}/readyz`);
      return { status: res.status, body: (await res.json()) as { checks: Record<string, string> } };
    };

    await until(() => {
      if (worker!.exitCode !== null) throw new Error(`relay worker exited with ${worker!.exitCode}:\n${output}`);
      return output.includes('Temporal unreachable');
    });
    await until(async () => (await fetch(`http://127.0.0.1:${metricsPort}/healthz`).catch(() => null))?.status === 200);
    expect(await readyz()).toEqual({ status: 503, body: expect.objectContaining({ checks: { database: 'up', temporal: 'down', worker: 'down' } }) });

    // The outbox needs only PostgreSQL: the event is fanned out while Temporal is away.
    const scene = await createScene(t.container);
    await scene.destination(receiver.url);
    const eventId = await insertEvent(t.container, scene.endpoint, { payload: { waited: true } });
    await until(async () => (await sql(t.container, 'select id from deliveries where event_id = ?', [eventId])).length === 1);
    const [delivery] = await sql<{ id: string }>(t.container, 'select id from deliveries where event_id = ?', [eventId]);

    // A minute later, Temporal starts on that address.
    await new Promise((r) => setTimeout(r, 60_000));
    expect(receiver.requests).toHaveLength(0);
    temporal = await startTemporalDevServer({
      cliPath: findTemporalCli(process.env.TEMPORAL_CLI_PATH),
      dbFile: path.join(dir, 'temporal.db'),
      port: temporalPort,
      uiPort: await freePort(),
      namespace: 'default',
    });
    await waitForStatus(t.container, delivery.id, ['success']);
    expect(receiver.requests.map((r) => JSON.parse(r.body))).toEqual([{ waited: true }]);
    await until(async () => (await readyz()).status === 200);
    // Ready follows the worker; the Temporal check's own client reconnects on its next try.
    await until(async () => JSON.stringify((await readyz()).body.checks) === JSON.stringify({ database: 'up', temporal: 'up', worker: 'up' }));

    // One line when Temporal went missing and one when it came back: no line per try, no stack trace.
    const lines = output.split('\n');
    if (process.env.RELAY_TEST_DUMP) fs.writeFileSync(process.env.RELAY_TEST_DUMP, output);
    const logged = (start: string) => lines.filter((l) => l.includes(`"msg":"${start}`));
    expect(logged('Temporal unreachable')).toHaveLength(1);
    expect(logged('Temporal answers again')).toHaveLength(1);
    expect(logged('could not start delivery workflows')).toHaveLength(1);
    expect(output).not.toMatch(/^\s+at /m);
  }, 300_000);
});
