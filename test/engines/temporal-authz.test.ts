import fs from 'node:fs';
import { msToTs } from '@temporalio/common/lib/time';
import os from 'node:os';
import path from 'node:path';
import { createContainer, type AppContainer } from '../../src/app/container';
import { createLogger } from '../../src/common/logger';
import { connectTemporal } from '../../src/temporal/client';
import { SEARCH_ATTRIBUTE_NAMES } from '../../src/temporal/search-attributes';
import { type Receiver, startReceiver } from '../delivery/receiver';
import { makeCa, makeCert } from '../support/certificates';
import { makeSigningKey, serveJwks, signJwt } from '../support/jwt';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { expectDeliveryThrough, runRelayMigrate, runRelayToExit, startTestTemporalServer, temporalServerForTest } from '../support/temporal-server-test';
import { createTestDatabase, type TestDatabase, testConfig } from '../support/test-env';

const binaries = temporalServerForTest('test/engines/temporal-authz.test.ts');

/**
 * Issue 20.1, the API-key half: Temporal Cloud's keys cannot be reached from here, but the
 * open-source server checks the same thing, a bearer token in the `authorization` metadata,
 * with its JWT claim mapper and default authorizer. The real temporal-server serves TLS and
 * trusts the JWKS this test serves; `relay start` delivers with a key holding only
 * `default:write`; a key signed by another key, an expired key and a key that may only read
 * each stop `relay worker` / `relay api` at start-up with one line naming TEMPORAL_API_KEY.
 */
(binaries ? describe : describe.skip)('Temporal API key against the JWT authorizer (real temporal-server)', () => {
  let dir: string;
  let temporal: { url: string; stop(): Promise<void> };
  let jwks: { url: string; close(): Promise<void> };
  let db: TestDatabase;
  let caFile: string;
  const trusted = makeSigningKey('relay-test');
  // Same key id, another key: what a forged or foreign token looks like to the server.
  const rogue = makeSigningKey('relay-test');
  const key = (permissions: string[], claims: Record<string, unknown> = {}, signer = trusted) => signJwt(signer, { sub: 'relay', permissions, ...claims });

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-temporal-authz-'));
    const ca = makeCa(dir, 'cluster-ca');
    const server = makeCert(dir, ca, 'frontend', ['localhost', '127.0.0.1']);
    caFile = ca.cert;
    jwks = await serveJwks([trusted]);
    temporal = await startTestTemporalServer(binaries!, path.join(dir, 'server'), 'authz', {
      tls: {
        certFile: server.cert,
        keyFile: server.key,
        caFile: ca.cert,
        serverName: 'localhost',
        client: { serverRootCACertificate: fs.readFileSync(ca.cert), serverNameOverride: 'localhost' },
      },
      authorization: { jwksUri: jwks.url, apiKey: key(['temporal-system:admin']) },
    });
    db = await createTestDatabase();
  }, 240_000);
  afterAll(async () => {
    await temporal?.stop();
    await jwks?.close();
    await db?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const keyEnvSettings = () => ({ address: temporal.url, namespace: 'default', tls: { serverRootCACertificate: fs.readFileSync(caFile), serverNameOverride: 'localhost' } });
  const keyEnv = (apiKey: string): Record<string, string> => ({
    TEMPORAL_ADDRESS: temporal.url,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: caFile,
    TEMPORAL_TLS_SERVER_NAME: 'localhost',
    TEMPORAL_API_KEY: apiKey,
  });

  // 30 s: a process the check lets through would run until killed, and `error` would say so.
  const relay = (command: 'worker' | 'api', env: Record<string, string>) => runRelayToExit(command, db.url, env, 30_000);

  describe('a delivery through relay start', () => {
    let service: ServiceProcess;
    let container: AppContainer;
    let receiver: Receiver;

    beforeAll(async () => {
      receiver = await startReceiver();
      container = await createContainer(testConfig({ DATABASE_URL: db.url }), createLogger('silent'));
      service = await startServiceProcess({ databaseUrl: db.url, command: 'start', env: keyEnv(key(['default:write'])) });
    }, 180_000);
    afterAll(async () => {
      await service?.stop();
      await container?.close();
      await receiver?.close();
    });

    it('completes with a key that may write in the namespace', async () => {
      await expectDeliveryThrough(service, container, receiver, { over: 'api-key' });
    });
  });

  const refused: Array<[string, () => string, RegExp]> = [
    [
      'signed by another key',
      () => key(['default:write'], {}, rogue),
      /^configuration error: TEMPORAL_API_KEY: refused by the Temporal server: not signed by a key it trusts, or revoked \(.*Request unauthorized/,
    ],
    [
      'that has expired',
      () => key(['default:write'], { exp: Math.floor(Date.now() / 1000) - 60 }),
      /^configuration error: TEMPORAL_API_KEY: refused by the Temporal server: the key expired at \d{4}-\d\d-\d\dT[\d:.]+Z \(/,
    ],
    [
      'that may only read',
      () => key(['default:read']),
      /^configuration error: TEMPORAL_API_KEY: the Temporal server accepted the key, but it may not write in namespace default \(that needs the `default:write` permission or more\) \(/,
    ],
  ];
  describe.each(['worker', 'api'] as const)('relay %s stops at start-up with one line', (command) => {
    it.each(refused)('for a key %s', (_what, apiKey, line) => {
      const out = relay(command, keyEnv(apiKey()));
      expect(out.error).toBeUndefined();
      expect(out.stderr.trim().split('\n')).toEqual([expect.stringMatching(line)]);
      expect(out.status).toBe(78);
    });
  });

  describe('relay migrate on a namespace without the search attributes', () => {
    const namespace = 'authz-fresh';
    beforeAll(async () => {
      const admin = await connectTemporal({ ...keyEnvSettings(), namespace, apiKey: key(['temporal-system:admin']) });
      try {
        await admin.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
        // The frontend serves a new namespace once its namespace cache has loaded it.
        for (let tries = 0; ; tries++) {
          try {
            await admin.operatorService.listSearchAttributes({ namespace });
            break;
          } catch (err) {
            if (tries > 120) throw err;
            await new Promise((r) => setTimeout(r, 250));
          }
        }
      } finally {
        await admin.close();
      }
    }, 60_000);

    it('stops with one line when the key may only write: adding them is an admin call', () => {
      const out = runRelayMigrate(db.url, { ...keyEnv(key([`${namespace}:write`])), TEMPORAL_NAMESPACE: namespace });
      expect(out.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^configuration error: TEMPORAL_API_KEY: the Temporal server accepted the key, but it may not add the relay's search attributes \(Relay\w+(, Relay\w+)*\) to namespace authz-fresh \(that needs the `authz-fresh:admin` permission or more\) \(/,
        ),
      ]);
      expect(out.status).toBe(78);
    });

    it('adds them with an admin key for the namespace', () => {
      const out = runRelayMigrate(db.url, { ...keyEnv(key([`${namespace}:admin`])), TEMPORAL_NAMESPACE: namespace });
      expect(out.stderr).toBe('');
      expect(out.stdout).toContain(`search attributes added: ${SEARCH_ATTRIBUTE_NAMES.join(', ')}`);
      expect(out.status).toBe(0);
    });
  });
});
