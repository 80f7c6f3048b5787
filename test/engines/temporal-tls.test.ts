import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createContainer, type AppContainer } from '../../src/app/container';
import { createLogger } from '../../src/common/logger';
import { type Receiver, startReceiver } from '../delivery/receiver';
import { makeCa, makeCert } from '../support/certificates';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { expectDeliveryThrough, runRelayToExit, startTestTemporalServer, temporalServerForTest } from '../support/temporal-server-test';
import { createTestDatabase, type TestDatabase, testConfig } from '../support/test-env';

const binaries = temporalServerForTest('test/engines/temporal-tls.test.ts');

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
    temporal = await startTestTemporalServer(binaries!, path.join(dir, 'server'), 'mtls', {
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

  const relay = (command: 'worker' | 'api', env: Record<string, string>) => runRelayToExit(command, db.url, env);

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
      await expectDeliveryThrough(service, container, receiver, { over: 'mtls' });
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
