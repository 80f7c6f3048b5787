import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { createContainer, type AppContainer } from '../../src/app/container';
import { createLogger } from '../../src/common/logger';
import { createScene, sql } from '../delivery/harness';
import { freePort } from '../support/free-port';
import { postSigned } from '../support/ingress-helpers';
import { type BuiltImage, buildRelayImage, pod, podOk, podmanMissing } from '../support/podman';
import { TEST_SECRETS, testConfig, uniqueTaskQueue } from '../support/test-env';

const missing = podmanMissing();
if (missing) process.stderr.write(`test/engines/image.test.ts: skipped, ${missing}\n`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A receiver that answers each request after `delayMs`, so that attempts are in flight when a worker is stopped. */
async function slowReceiver(delayMs: number) {
  const received: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => setTimeout(() => {
      received.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200).end('ok');
    }, delayMs));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** RSS of a container's main process, read on the host (MiB). */
async function rssMiB(name: string): Promise<number> {
  const pid = (await podOk('inspect', '--format', '{{.State.Pid}}', name)).trim();
  const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return Math.round(kb / 1024);
}

/**
 * Issue 35.1: the image users build from the Dockerfile (here FROM a Node 24 base made from Debian's
 * packages) runs `relay migrate`, `relay api` and `relay worker` against a real PostgreSQL and Temporal,
 * as `node`, on a read-only root filesystem with a tmpfs /tmp; delivers; stops cleanly on SIGTERM with
 * nothing acknowledged lost; carries its OCI labels; and its HEALTHCHECK follows /readyz.
 */
(missing ? describe.skip : describe)('the container image', () => {
  const id = randomBytes(4).toString('hex');
  const names = { api: `relay-image-${id}-api`, worker: `relay-image-${id}-worker`, sick: `relay-image-${id}-sick` };
  let built: BuiltImage;
  let dbName: string;
  let databaseUrl: string;
  let container: AppContainer;
  let receiver: Awaited<ReturnType<typeof slowReceiver>>;
  const ports = { api: 0, apiMetrics: 0, workerMetrics: 0 };
  const taskQueue = uniqueTaskQueue('image');
  const figures: Record<string, unknown> = {};

  const env = () => ({
    HOST: '127.0.0.1',
    PORT: String(ports.api),
    RELAY_METRICS_PORT: String(ports.apiMetrics),
    RELAY_WORKER_METRICS_PORT: String(ports.workerMetrics),
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
    TEMPORAL_TASK_QUEUE: taskQueue,
    PUBLIC_BASE_URL: `http://127.0.0.1:${ports.api}`,
    RELAY_ALLOW_PRIVATE_NETWORKS: '1',
    RELAY_DRAIN_DELAY_MS: '5000',
    LOG_LEVEL: 'info',
    ...TEST_SECRETS,
  });
  const envArgs = (vars: Record<string, string>) => Object.entries(vars).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
  /** How the docs run it: read-only root, tmpfs /tmp, host network here (PostgreSQL and Temporal are the host's). */
  const runArgs = ['--network', 'host', '--read-only', '--tmpfs', '/tmp', '--stop-timeout', '30'];
  const startContainer = (name: string, command: string, vars = env()) => podOk('run', '--detach', '--name', name, ...runArgs, ...envArgs(vars), built.image, command);
  const healthy = async (name: string) => (await pod('healthcheck', 'run', name)).code === 0;
  async function untilHealthy(name: string, ms = 90_000) {
    const deadline = Date.now() + ms;
    while (!(await healthy(name))) {
      if (Date.now() > deadline) throw new Error(`${name} not healthy in ${ms} ms:\n${(await pod('logs', name)).stderr}`);
      await sleep(500);
    }
  }

  beforeAll(async () => {
    built = await buildRelayImage(`localhost/relay:test-${id}`);
    figures.baseSeconds = Math.round(built.baseSeconds);
    figures.buildSeconds = Math.round(built.buildSeconds);
    dbName = `relay_image_${id}`;
    const admin = new Client({ connectionString: process.env.RELAY_TEST_ADMIN_DATABASE_URL });
    await admin.connect();
    await admin.query(`create database ${dbName}`);
    await admin.end();
    const url = new URL(process.env.RELAY_TEST_ADMIN_DATABASE_URL!);
    url.pathname = `/${dbName}`;
    databaseUrl = url.toString();
    ports.api = await freePort();
    ports.apiMetrics = await freePort();
    ports.workerMetrics = await freePort();
    receiver = await slowReceiver(300);
  }, 20 * 60_000);

  afterAll(async () => {
    process.stderr.write(`image test figures: ${JSON.stringify(figures)}\n`);
    await pod('rm', '--force', '--time', '0', ...Object.values(names));
    if (built) await pod('rmi', built.image);
    await container?.close();
    await receiver?.close();
    if (dbName) {
      const admin = new Client({ connectionString: process.env.RELAY_TEST_ADMIN_DATABASE_URL });
      await admin.connect();
      await admin.query(`drop database if exists ${dbName} with (force)`);
      await admin.end();
    }
  }, 120_000);

  it('carries its OCI labels, runs as a non-root user and declares its health check', async () => {
    const [{ Config: config, Healthcheck: healthcheck }] = JSON.parse(await podOk('image', 'inspect', built.image));
    expect(config.Labels).toMatchObject({
      'org.opencontainers.image.version': built.version,
      'org.opencontainers.image.revision': built.revision,
      'org.opencontainers.image.source': built.source,
      'org.opencontainers.image.licenses': 'Apache-2.0',
    });
    expect(config.User).toBe('node');
    expect(config.Env).toEqual(expect.arrayContaining(['NODE_ENV=production']));
    expect(healthcheck.Test).toEqual(['CMD', 'node', 'bin/healthcheck.js']);
    // Node 24 LTS, and production dependencies only.
    const inside = await podOk('run', '--rm', ...runArgs, '--entrypoint', 'sh', built.image, '-c', 'node --version; id -u; ls node_modules/.bin | grep -cx -e jest -e eslint -e tsc -e vite || true');
    const [node, uid, devTools] = inside.trim().split('\n');
    // `relay --version` names the commit the image was built from (its build context has no .git).
    expect(await podOk('run', '--rm', ...runArgs, built.image, '--version')).toContain(`${built.version} (commit ${built.revision.slice(0, 12)})`);
    expect(node).toMatch(/^v24\./);
    expect(uid).toBe('1000');
    expect(devTools).toBe('0');
  });

  it('relay migrate migrates an empty database and registers the search attributes', async () => {
    const out = await podOk('run', '--rm', ...runArgs, ...envArgs(env()), built.image, 'migrate');
    expect(out).toMatch(/^applied: /m);
    expect(out).toMatch(/^search attributes (added|present)/m);
    container = await createContainer(testConfig({ DATABASE_URL: databaseUrl, TEMPORAL_TASK_QUEUE: taskQueue }), createLogger('silent'));
  }, 120_000);

  it('relay api and relay worker deliver a webhook, as uid 1000 on a read-only root, metrics off the public port', async () => {
    await startContainer(names.api, 'api');
    await startContainer(names.worker, 'worker');
    await untilHealthy(names.api);
    await untilHealthy(names.worker);
    const scene = await createScene(container);
    await scene.destination(receiver.url);
    const body = '{"hello":"container","n":1.0}';
    const sent = await postSigned(`http://127.0.0.1:${ports.api}`, scene.endpoint.slug, scene.signingSecret, JSON.parse(body));
    expect(sent.status).toBe(202);
    while (receiver.received.length < 1) await sleep(100);
    expect(JSON.parse(receiver.received[0])).toEqual({ hello: 'container', n: 1 });

    for (const name of [names.api, names.worker]) {
      // The process itself (PID 1), not only the user a shell gets.
      expect(await podOk('exec', name, 'sh', '-c', "awk '/^Uid:/ {print $2}' /proc/1/status")).toBe('1000\n');
      const write = await pod('exec', name, 'sh', '-c', 'touch /app/written 2>&1; touch /tmp/written && echo tmp-ok');
      expect(write.stdout).toMatch(/Read-only file system/);
      expect(write.stdout).toMatch(/tmp-ok/);
    }
    expect((await fetch(`http://127.0.0.1:${ports.api}/metrics`)).status).toBe(404);
    expect(await (await fetch(`http://127.0.0.1:${ports.apiMetrics}/metrics`)).text()).toMatch(/relay_ingress_requests_total\{status="202"\} 1/);
    expect(await (await fetch(`http://127.0.0.1:${ports.workerMetrics}/metrics`)).text()).toMatch(/^relay_delivery_attempts_total\{[^}]*outcome="delivered"[^}]*\} 1$/m);
    figures.rssAfterFirstDeliveryMiB = { api: await rssMiB(names.api), worker: await rssMiB(names.worker) };
  }, 180_000);

  it('stops cleanly on SIGTERM mid-traffic: the API drains, the worker finishes its attempts, nothing acknowledged is lost', async () => {
    const scene = await createScene(container);
    await scene.destination(receiver.url);
    const acknowledged = new Map<number, string>();
    let refused = 0;
    let answers5xx = 0;
    let sending = true;
    let seq = 0;
    let apiTermAt = Infinity;
    let apiExitAt = Infinity;
    let servedWhileDraining = 0;
    const inFlight = new Set<Promise<void>>();
    const traffic = (async () => {
      while (sending) {
        const n = seq++;
        const sentAt = performance.now();
        const p = postSigned(`http://127.0.0.1:${ports.api}`, scene.endpoint.slug, scene.signingSecret, { seq: n })
          .then((res) => {
            if (res.status === 202) acknowledged.set(n, res.body.event_id!);
            if (res.status === 202 && sentAt > apiTermAt && sentAt < apiExitAt) servedWhileDraining += 1;
            else if (res.status >= 500) answers5xx += 1;
          })
          .catch(() => {
            refused += 1;
          })
          .finally(() => inFlight.delete(p));
        inFlight.add(p);
        await sleep(50);
      }
    })();
    const stop = async (name: string) => {
      const began = performance.now();
      await podOk('kill', '--signal', 'TERM', name);
      const code = (await podOk('wait', name)).trim();
      return { code, seconds: Math.round((performance.now() - began) / 100) / 10 };
    };

    await sleep(2000);
    // The worker: SIGTERM while attempts wait on the slow receiver; it finishes them, then exits 0.
    const worker = await stop(names.worker);
    expect(worker.code).toBe('0');
    expect((await pod('logs', names.worker)).stdout).toMatch(/relay stopped \(worker\)/);
    await podOk('start', names.worker);
    await sleep(2000);
    // The API: SIGTERM; for the drain delay it keeps answering while /readyz (so the health check) says draining.
    apiTermAt = performance.now();
    await podOk('kill', '--signal', 'TERM', names.api);
    // The signal reaches the process's handler within moments (a loaded machine may take a while).
    let readyz: unknown[] = [];
    for (let i = 0; i < 40 && readyz[0] !== 503; i++) {
      const res = await fetch(`http://127.0.0.1:${ports.api}/readyz`);
      readyz = [res.status, await res.json()];
      if (readyz[0] !== 503) await sleep(50);
    }
    expect(readyz).toEqual([503, { status: 'draining', checks: {} }]);
    expect(await healthy(names.api)).toBe(false);
    const api = { code: (await podOk('wait', names.api)).trim() };
    apiExitAt = performance.now();
    expect(api.code).toBe('0');
    expect(servedWhileDraining).toBeGreaterThan(0);
    await podOk('start', names.api);
    await untilHealthy(names.api);
    await untilHealthy(names.worker);
    await sleep(2000);
    sending = false;
    await traffic;
    await Promise.all([...inFlight]);

    // Every acknowledged event: delivered, once.
    const ids = [...acknowledged.values()];
    const deadline = Date.now() + 120_000;
    let open = ids.length;
    while (open > 0 && Date.now() < deadline) {
      await sleep(500);
      const rows = await sql<{ n: string }>(container, `select count(*) as n from deliveries d where d.event_id = any(?::uuid[]) and d.status = 'success'`, [ids]);
      open = ids.length - Number(rows[0].n);
    }
    const bySeq = new Map<number, number>();
    for (const body of receiver.received) {
      const n = (JSON.parse(body) as { seq?: number }).seq;
      if (n !== undefined) bySeq.set(n, (bySeq.get(n) ?? 0) + 1);
    }
    const lost = [...acknowledged.keys()].filter((n) => !bySeq.has(n));
    const duplicated = [...bySeq.entries()].filter(([, count]) => count > 1).map(([n]) => n);
    Object.assign(figures, { sent: seq, acknowledged: acknowledged.size, servedWhileDraining, refused, answers5xx, lost: lost.length, duplicated: duplicated.length, workerStopSeconds: worker.seconds });
    figures.rssAfterTrafficMiB = { api: await rssMiB(names.api), worker: await rssMiB(names.worker) };
    expect(answers5xx).toBe(0);
    expect(acknowledged.size).toBeGreaterThan(100);
    expect(open).toBe(0);
    expect(lost).toEqual([]);
    expect(duplicated).toEqual([]);
  }, 300_000);

  it('reports unhealthy while Temporal cannot be reached, and keeps running', async () => {
    const metricsPort = await freePort();
    await startContainer(names.sick, 'worker', { ...env(), TEMPORAL_ADDRESS: '127.0.0.1:1', RELAY_WORKER_METRICS_PORT: String(metricsPort) });
    let readyz: Response | undefined;
    for (let i = 0; i < 120 && !readyz; i++) {
      readyz = await fetch(`http://127.0.0.1:${metricsPort}/readyz`).catch(() => undefined);
      if (!readyz) await sleep(250);
    }
    expect(readyz?.status).toBe(503);
    expect(await readyz!.json()).toMatchObject({ status: 'not_ready', checks: { database: 'up', temporal: 'down' } });
    expect(await healthy(names.sick)).toBe(false);
    expect((await podOk('inspect', '--format', '{{.State.Running}}', names.sick)).trim()).toBe('true');
  }, 120_000);
});
