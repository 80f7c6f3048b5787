import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createContainer, type AppContainer } from '../../src/app/container';
import { createLogger } from '../../src/common/logger';
import { findTemporalServer, startTemporalServer, type TemporalServerBinaries } from '../../src/launcher/temporal-server';
import { createScene, waitForDeliveries, waitForStatus } from '../delivery/harness';
import { type Receiver, startReceiver } from '../delivery/receiver';
import { makeCa, makeCert } from '../support/certificates';
import { freePort } from '../support/free-port';
import { postSigned } from '../support/ingress-helpers';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestDatabase, TEST_SECRETS, type TestDatabase, testConfig, uniqueTaskQueue } from '../support/test-env';

const RELAY = path.resolve(__dirname, '..', '..', 'bin', 'relay.js');

function serverBinaries(): TemporalServerBinaries | undefined {
  try {
    return findTemporalServer(process.env.TEMPORAL_SERVER_PATH);
  } catch {
    return undefined;
  }
}

const binaries = serverBinaries();
if (!binaries) {
  process.stderr.write('test/engines/temporal-tls.test.ts: skipped, temporal-server is not installed (npm run temporal:server:install)\n');
}

/**
 * Issue 20.1: the real Temporal server (built from its Go module) serving mutual TLS
 * with certificates this test generates. `relay start` delivers over mTLS; a client
 * certificate from another CA, no client certificate, and a CA that did not sign the
 * server's certificate each stop `relay worker` / `relay api` with one line naming the
 * variable to fix.
 */
(binaries ? describe : describe.skip)('Temporal over mutual TLS (real temporal-server)', () => {
  let dir: string;
  let temporal: { url: string; stop(): Promise<void> };
  let db: TestDatabase;
  const files: Record<string, string> = {};

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-temporal-mtls-'));
    const ca = makeCa(dir, 'cluster-ca');
    const server = makeCert(dir, ca, 'frontend', ['localhost', '127.0.0.1']);
    const client = makeCert(dir, ca, 'relay-client');
    const rogueCa = makeCa(dir, 'rogue-ca');
    const rogueClient = makeCert(dir, rogueCa, 'rogue-client');
    Object.assign(files, { ca: ca.cert, clientCert: client.cert, clientKey: client.key, rogueCa: rogueCa.cert, rogueCert: rogueClient.cert, rogueKey: rogueClient.key });
    const suffix = Math.random().toString(16).slice(2, 8);
    temporal = await startTemporalServer({
      binaries: binaries!,
      postgresUrl: process.env.RELAY_TEST_ADMIN_DATABASE_URL!,
      dir: path.join(dir, 'server'),
      port: await freePort(),
      namespace: 'default',
      database: `temporal_mtls_${suffix}`,
      visibilityDatabase: `temporal_mtls_visibility_${suffix}`,
      tls: {
        certFile: server.cert,
        keyFile: server.key,
        clientCaFile: ca.cert,
        caFile: ca.cert,
        serverName: 'localhost',
        client: {
          serverRootCACertificate: fs.readFileSync(ca.cert),
          clientCertPair: { crt: fs.readFileSync(client.cert), key: fs.readFileSync(client.key) },
          serverNameOverride: 'localhost',
        },
      },
    });
    db = await createTestDatabase();
  }, 240_000);
  afterAll(async () => {
    await temporal?.stop();
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const mtlsEnv = (): Record<string, string> => ({
    TEMPORAL_ADDRESS: temporal.url,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: files.ca,
    TEMPORAL_TLS_CLIENT_CERT_PATH: files.clientCert,
    TEMPORAL_TLS_CLIENT_KEY_PATH: files.clientKey,
    TEMPORAL_TLS_SERVER_NAME: 'localhost',
  });

  /** Runs `relay <command>` to its exit (a process that starts fine is stopped after 20 s and reported as such). */
  const relay = (command: 'worker' | 'api', env: Record<string, string>) =>
    spawnSync(process.execPath, [RELAY, command], {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        DATABASE_URL: db.url,
        TEMPORAL_TASK_QUEUE: uniqueTaskQueue('mtls'),
        PORT: '0',
        ...TEST_SECRETS,
        ...env,
      },
      encoding: 'utf8',
      timeout: 20_000,
      killSignal: 'SIGKILL',
    });

  describe('a delivery through relay start', () => {
    let service: ServiceProcess;
    let container: AppContainer;
    let receiver: Receiver;

    beforeAll(async () => {
      receiver = await startReceiver();
      container = await createContainer(testConfig({ DATABASE_URL: db.url }), createLogger('silent'));
      service = await startServiceProcess({ databaseUrl: db.url, command: 'start', env: mtlsEnv() });
    }, 180_000);
    afterAll(async () => {
      await service?.stop();
      await container?.close();
      await receiver?.close();
    });

    it('completes over mutual TLS', async () => {
      expect(await (await fetch(`${service.baseUrl}/readyz`)).json()).toEqual({ status: 'ready', checks: { database: 'up', temporal: 'up' } });
      const scene = await createScene(container);
      await scene.destination(`${receiver.url}/hook`);
      const sent = await postSigned(service.baseUrl, scene.endpoint.slug, scene.signingSecret, { over: 'mtls' });
      expect(sent.status).toBe(202);
      const [delivery] = await waitForDeliveries(container, sent.body.event_id!, 1);
      expect((await waitForStatus(container, delivery.id, ['success', 'failed'])).status).toBe('success');
      expect(receiver.requests.map((r) => JSON.parse(r.body))).toEqual([{ over: 'mtls' }]);
    });
  });

  it('stops the worker with one line when the client certificate is not one the server trusts', () => {
    const out = relay('worker', { ...mtlsEnv(), TEMPORAL_TLS_CLIENT_CERT_PATH: files.rogueCert, TEMPORAL_TLS_CLIENT_KEY_PATH: files.rogueKey });
    expect(out.error).toBeUndefined();
    expect(out.status).toBe(78);
    expect(out.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^configuration error: TEMPORAL_TLS_CLIENT_CERT_PATH: the Temporal server refused the client certificate \(/)]);
  });

  it('stops the API with one line when no client certificate is given', () => {
    const { TEMPORAL_TLS_CLIENT_CERT_PATH: _cert, TEMPORAL_TLS_CLIENT_KEY_PATH: _key, ...withoutClient } = mtlsEnv();
    const out = relay('api', withoutClient);
    expect(out.error).toBeUndefined();
    expect(out.status).toBe(78);
    expect(out.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^configuration error: TEMPORAL_TLS_CLIENT_CERT_PATH: the Temporal server requires a client certificate \(mutual TLS\) \(/)]);
  });

  it('stops the worker with one line when the CA did not sign the server certificate', () => {
    const out = relay('worker', { ...mtlsEnv(), TEMPORAL_TLS_SERVER_CA_CERT_PATH: files.rogueCa });
    expect(out.error).toBeUndefined();
    expect(out.status).toBe(78);
    expect(out.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^configuration error: TEMPORAL_TLS_SERVER_CA_CERT_PATH: the Temporal server's certificate is not signed by this CA \(/)]);
  });
});
