import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { createContainer, type AppContainer } from '../../src/app/container';
import { createLogger } from '../../src/common/logger';
import { createScene } from '../delivery/harness';
import { freePort } from '../support/free-port';
import { hubSignature } from '../support/ingress-helpers';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestDatabase, type TestDatabase, testConfig } from '../support/test-env';

const REPO = path.resolve(__dirname, '..', '..');
const CADDYFILE = path.join(REPO, 'deploy', 'caddy', 'Caddyfile');
const caddyMissing = spawnSync('caddy', ['version'], { encoding: 'utf8' }).status !== 0;
if (caddyMissing) process.stderr.write('test/engines/caddy.test.ts: skipped, caddy is not installed (bash .ci/run installs Debian\'s caddy)\n');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Issue 35.2: docker-compose.yml's Caddyfile, run by Caddy in front of two `relay api` processes in production mode:
 * TLS from Caddy's internal CA, HTTP redirected to HTTPS, requests balanced over both replicas, and a replica that
 * gets SIGTERM taken out of rotation through its /readyz while it drains, with no request failing.
 */
(caddyMissing ? describe.skip : describe)('Caddy in front of the API replicas (deploy/caddy/Caddyfile)', () => {
  let dir: string;
  let db: TestDatabase;
  let container: AppContainer;
  const apis: Array<{ service: ServiceProcess; metricsPort: number }> = [];
  let caddy: ChildProcess | undefined;
  let caddyOutput = '';
  const ports = { http: 0, https: 0 };
  let agent: Agent;

  const caddyEnv = (upstreams: string) => ({
    PATH: process.env.PATH,
    HOME: dir,
    XDG_DATA_HOME: path.join(dir, 'data'),
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    RELAY_DOMAIN: 'localhost',
    RELAY_HTTP_PORT: String(ports.http),
    RELAY_HTTPS_PORT: String(ports.https),
    RELAY_API_UPSTREAMS: upstreams,
  });
  const get = (url: string, init: Parameters<typeof undiciFetch>[1] = {}) => undiciFetch(url, { dispatcher: agent, redirect: 'manual', ...init });
  const ingress202 = async (metricsPort: number) => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    return Number(/^relay_ingress_requests_total\{status="202"\} (\d+)$/m.exec(text)?.[1] ?? 0);
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-caddy-'));
    db = await createTestDatabase();
    container = await createContainer(testConfig({ DATABASE_URL: db.url }), createLogger('silent'));
    ports.http = await freePort();
    ports.https = await freePort();
    for (let i = 0; i < 2; i++) {
      const metricsPort = await freePort();
      const service = await startServiceProcess({
        databaseUrl: db.url,
        command: 'api',
        env: {
          NODE_ENV: 'production',
          PUBLIC_BASE_URL: `https://localhost:${ports.https}`,
          RELAY_TRUST_PROXY: '1',
          RELAY_METRICS_PORT: String(metricsPort),
          RELAY_DRAIN_DELAY_MS: '6000',
        },
      });
      apis.push({ service, metricsPort });
    }
  }, 120_000);

  afterAll(async () => {
    if (caddy && caddy.exitCode === null) {
      const exited = new Promise((r) => caddy!.once('exit', r));
      caddy.kill('SIGTERM');
      await exited;
    }
    await agent?.close();
    await Promise.all(apis.map((a) => a.service.stop()));
    await container?.close();
    await db?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is a valid Caddyfile (caddy validate)', () => {
    const out = spawnSync('caddy', ['validate', '--config', CADDYFILE, '--adapter', 'caddyfile'], { env: caddyEnv('127.0.0.1:1 127.0.0.1:2'), encoding: 'utf8' });
    expect(`${out.stdout}${out.stderr}`).toMatch(/Valid configuration/);
    expect(out.status).toBe(0);
  });

  it('serves HTTPS from its internal CA and balances over both replicas; a draining replica leaves the rotation', async () => {
    const upstreams = apis.map((a) => new URL(a.service.baseUrl).host).join(' ');
    caddy = spawn('caddy', ['run', '--config', CADDYFILE, '--adapter', 'caddyfile'], { env: caddyEnv(upstreams), stdio: ['ignore', 'pipe', 'pipe'] });
    caddy.stdout!.on('data', (d: Buffer) => (caddyOutput += d.toString()));
    caddy.stderr!.on('data', (d: Buffer) => (caddyOutput += d.toString()));
    // Caddy's own CA signs the certificate for localhost: trusting only its root proves where the certificate came from.
    const root = path.join(dir, 'data', 'caddy', 'pki', 'authorities', 'local', 'root.crt');
    const base = `https://localhost:${ports.https}`;
    for (let ready = false; !ready; ) {
      if (caddy.exitCode !== null) throw new Error(`caddy exited:\n${caddyOutput}`);
      if (fs.existsSync(root)) {
        agent ??= new Agent({ connect: { ca: fs.readFileSync(root, 'utf8') } });
        ready = await get(`${base}/healthz`).then((r) => r.status === 200, () => false);
      }
      if (!ready) await sleep(250);
    }

    const plain = await fetch(`http://localhost:${ports.http}/healthz`, { redirect: 'manual' });
    expect(plain.status).toBe(308);
    expect(plain.headers.get('location')).toMatch(/^https:\/\/localhost(:\d+)?\/healthz$/);
    // The API's production answer for /metrics comes through: nothing to scrape on the public side.
    expect((await get(`${base}/metrics`)).status).toBe(404);

    const scene = await createScene(container);
    const post = async (n: number) => {
      const body = JSON.stringify({ n });
      const res = await get(`${base}/hooks/${scene.endpoint.slug}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...hubSignature(scene.signingSecret, body) } });
      await res.arrayBuffer();
      return res.status;
    };
    const before = await Promise.all(apis.map((a) => ingress202(a.metricsPort)));
    const first = [];
    for (let n = 0; n < 20; n++) first.push(await post(n));
    expect(first.every((s) => s === 202)).toBe(true);
    const after = await Promise.all(apis.map((a) => ingress202(a.metricsPort)));
    const served = after.map((v, i) => v - before[i]);
    expect(served[0] + served[1]).toBe(20);
    expect(served[0]).toBeGreaterThan(0);
    expect(served[1]).toBeGreaterThan(0);

    // SIGTERM to the first replica: its /readyz turns 503 at once and Caddy's next check (every 2 s) takes it out of
    // the rotation, while it keeps serving what still reaches it until its drain delay (6 s) ends. From then on it gets
    // nothing (compared at 3 s and 5.5 s, before it exits), and traffic through Caddy never fails.
    const draining = apis[0];
    const statuses: number[] = [];
    const exited = new Promise((r) => draining.service.child.once('exit', r));
    const t0 = performance.now();
    draining.service.child.kill('SIGTERM');
    let sending = true;
    const traffic = (async () => {
      for (let n = 100; sending; n++) {
        statuses.push(await post(n));
        await sleep(100);
      }
    })();
    await sleep(3000 - (performance.now() - t0));
    const outAt3s = await ingress202(draining.metricsPort);
    const survivorAt3s = await ingress202(apis[1].metricsPort);
    await sleep(5500 - (performance.now() - t0));
    const outAt5s = await ingress202(draining.metricsPort);
    const survivorAt5s = await ingress202(apis[1].metricsPort);
    await exited;
    await sleep(1000);
    sending = false;
    await traffic;
    expect(statuses.filter((s) => s !== 202)).toEqual([]);
    expect(outAt5s - outAt3s).toBe(0);
    expect(survivorAt5s - survivorAt3s).toBeGreaterThan(5);
  }, 120_000);
});
