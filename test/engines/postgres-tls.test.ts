import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createContainer, type AppContainer } from '../../src/app/container';
import { createLogger } from '../../src/common/logger';
import { createScene, waitForDeliveries, waitForStatus, sql } from '../delivery/harness';
import { type Receiver, startReceiver } from '../delivery/receiver';
import { makeCa, makeCert } from '../support/certificates';
import { freePort } from '../support/free-port';
import { startPostgresChild } from '../support/postgres-child';
import { postSigned } from '../support/ingress-helpers';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { TEST_SECRETS, testConfig } from '../support/test-env';

const RELAY = path.resolve(__dirname, '..', '..', 'bin', 'relay.js');

/**
 * Issue 20.2: a PostgreSQL that serves TLS (the embedded server with `ssl=on` and a
 * certificate signed by a CA this test makes). The migrations, the ORM, LISTEN/NOTIFY
 * and ingress's pool all connect with DATABASE_SSL_MODE=verify-full and DATABASE_SSL_CA,
 * and PostgreSQL itself confirms every connection is encrypted. A CA that did not
 * sign the server's certificate stops start-up with one line naming DATABASE_SSL_CA.
 */
describe('PostgreSQL over TLS', () => {
  let dir: string;
  let pg: { stop(): Promise<void> };
  let url: string;
  let ca: string;
  let rogueCa: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-pg-tls-'));
    fs.chmodSync(dir, 0o755);
    const authority = makeCa(dir, 'pg-ca');
    const server = makeCert(dir, authority, 'pg-server', ['localhost', '127.0.0.1']);
    ca = authority.cert;
    rogueCa = makeCa(dir, 'rogue-ca').cert;
    const port = await freePort();
    pg = await startPostgresChild({ dataDir: path.join(dir, 'pg'), port, tls: { certFile: server.cert, keyFile: server.key } });
    url = `postgres://relay:relay@127.0.0.1:${port}/relay`;
  }, 180_000);
  afterAll(async () => {
    await pg?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const relay = (args: string[], env: Record<string, string>) =>
    spawnSync(process.execPath, [RELAY, ...args], {
      env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn', TEMPORAL_ADDRESS: '', DATABASE_URL: url, ...TEST_SECRETS, ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });

  it('refuses a CA that did not sign the server certificate, in one line naming DATABASE_SSL_CA', () => {
    const out = relay(['migrate'], { DATABASE_SSL_MODE: 'verify-full', DATABASE_SSL_CA: rogueCa });
    expect(out.status).toBe(78);
    expect(out.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^configuration error: DATABASE_SSL_CA: the PostgreSQL server's certificate is not trusted \(/)]);
  });

  it('refuses an unreadable CA file and an unsupported mode before connecting', () => {
    const missing = relay(['migrate'], { DATABASE_SSL_MODE: 'verify-full', DATABASE_SSL_CA: path.join(dir, 'nope.crt') });
    expect(missing.status).toBe(78);
    expect(missing.stderr.trim()).toMatch(/^configuration error: DATABASE_SSL_CA: cannot read .*nope\.crt \(ENOENT\)$/);
    const prefer = relay(['migrate'], { DATABASE_URL: `${url}?sslmode=prefer` });
    expect(prefer.status).toBe(78);
    expect(prefer.stderr.trim()).toMatch(/^configuration error: DATABASE_URL \(sslmode\): "prefer" is not supported/);
  });

  it('migrates over TLS (verify-full against the generated CA)', () => {
    const out = relay(['migrate'], { DATABASE_SSL_MODE: 'verify-full', DATABASE_SSL_CA: ca });
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/applied: |database is up to date/);
  });

  describe('a running service', () => {
    let service: ServiceProcess;
    let container: AppContainer;
    let receiver: Receiver;

    beforeAll(async () => {
      // The URL's own libpq parameters work as well as the variables.
      const tlsUrl = `${url}?sslmode=verify-full&sslrootcert=${encodeURIComponent(ca)}`;
      receiver = await startReceiver();
      container = await createContainer(testConfig({ DATABASE_URL: tlsUrl }), createLogger('silent'));
      service = await startServiceProcess({ databaseUrl: url, command: 'start', env: { DATABASE_SSL_MODE: 'verify-full', DATABASE_SSL_CA: ca } });
    }, 180_000);
    afterAll(async () => {
      await service?.stop();
      await container?.close();
      await receiver?.close();
    });

    it('delivers a webhook with every connection to PostgreSQL encrypted', async () => {
      const scene = await createScene(container);
      await scene.destination(`${receiver.url}/hook`);
      const sent = await postSigned(service.baseUrl, scene.endpoint.slug, scene.signingSecret, { over: 'tls' });
      expect(sent.status).toBe(202);
      const [delivery] = await waitForDeliveries(container, sent.body.event_id!, 1);
      expect((await waitForStatus(container, delivery.id, ['success', 'failed'])).status).toBe('success');
      expect(receiver.requests.map((r) => JSON.parse(r.body))).toEqual([{ over: 'tls' }]);

      // The service's ORM pool, ingress pool and LISTEN connection, and this test's ORM.
      const connections = await sql<{ ssl: boolean; query: string }>(
        container,
        `select s.ssl, a.query from pg_stat_ssl s join pg_stat_activity a using (pid)
          where a.datname = 'relay' and a.backend_type = 'client backend'`,
      );
      expect(connections.some((c) => /^listen /i.test(c.query))).toBe(true);
      expect(connections.length).toBeGreaterThanOrEqual(3);
      expect(connections.filter((c) => !c.ssl)).toEqual([]);
    });
  });
});
