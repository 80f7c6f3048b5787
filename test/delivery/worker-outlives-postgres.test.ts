import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { insertEvent } from '../support/factories';
import { freePort } from '../support/free-port';
import { createTestContainer, TEST_SECRETS, type TestContainer, uniqueTaskQueue } from '../support/test-env';
import { createScene, waitForDeliveries, waitForStatus } from './harness';
import { type Receiver, startReceiver } from './receiver';

const REPO = path.resolve(__dirname, '..', '..');

/**
 * A TCP proxy in front of the test's PostgreSQL that the test can take away (refuse new
 * connections and cut the open ones) and bring back: PostgreSQL's loss and return, as the
 * worker sees it, without stopping a server other tests share.
 */
async function startPgProxy(target: { host: string; port: number }, port: number) {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  const up = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => s.destroy());
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => resolve());
    });
  const down = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = null;
  };
  return { up, down };
}

/** docs/internals/delivery.md "When Temporal or PostgreSQL is away": PostgreSQL down at start, and lost later. */
describe('relay worker outlives PostgreSQL', () => {
  let t: TestContainer;
  let receiver: Receiver;
  let worker: ChildProcess | undefined;
  let proxy: Awaited<ReturnType<typeof startPgProxy>>;
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
    await proxy?.down();
    await receiver?.close();
    await t?.close();
  });

  const until = async (check: () => boolean | Promise<boolean>) => {
    while (!(await check())) {
      if (worker!.exitCode !== null) throw new Error(`relay worker exited with ${worker!.exitCode}:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  it('waits for PostgreSQL at start, then delivers; after a loss, delivers what arrived meanwhile', async () => {
    const real = new URL(t.db.url);
    const proxyPort = await freePort();
    proxy = await startPgProxy({ host: real.hostname, port: Number(real.port) }, proxyPort);
    const viaProxy = new URL(t.db.url);
    viaProxy.port = String(proxyPort);
    worker = spawn(process.execPath, [path.join(REPO, 'bin', 'relay.js'), 'worker'], {
      cwd: REPO,
      env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'info', DATABASE_URL: viaProxy.toString(), TEMPORAL_TASK_QUEUE: uniqueTaskQueue('pg'), ...TEST_SECRETS },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    worker.stderr!.on('data', (d: Buffer) => (output += d.toString()));

    await until(() => output.includes('"msg":"PostgreSQL unreachable'));
    await proxy.up();
    await until(() => output.includes('"msg":"worker running"'));
    const scene = await createScene(t.container);
    await scene.destination(receiver.url);
    const first = await insertEvent(t.container, scene.endpoint, { payload: { n: 1 } });
    await waitForStatus(t.container, (await waitForDeliveries(t.container, first, 1))[0].id, ['success']);

    // Lost: the event arrives while the worker cannot reach PostgreSQL; delivered once it can.
    await proxy.down();
    const second = await insertEvent(t.container, scene.endpoint, { payload: { n: 2 } });
    await until(() => output.includes('"msg":"delivery dispatch failed'));
    await proxy.up();
    await waitForStatus(t.container, (await waitForDeliveries(t.container, second, 1))[0].id, ['success']);
    expect(receiver.requests.map((r) => JSON.parse(r.body))).toEqual([{ n: 1 }, { n: 2 }]);
    const logged = (start: string) => output.split('\n').filter((l) => l.includes(`"msg":"${start}`));
    expect(logged('PostgreSQL unreachable')).toHaveLength(1);
    expect(logged('delivery dispatch failed')).toHaveLength(1);
  }, 240_000);
});
