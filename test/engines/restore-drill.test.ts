import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { type Receiver, startReceiver } from '../delivery/receiver';
import { rest } from '../support/api';
import { PASSWORD, uniqueEmail } from '../support/accounts';
import { freePort } from '../support/free-port';
import { postSigned } from '../support/ingress-helpers';
import { startPostgresChild } from '../support/postgres-child';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestDatabase, type TestDatabase } from '../support/test-env';

/**
 * pg_dump / pg_restore of the server's major version: RELAY_TEST_PG_BIN, else where scripts/install-pg-client-tools.sh
 * puts them (.ci/run runs it). The embedded server ships none, and Debian's are PostgreSQL 15's.
 */
function pgTool(name: string): string {
  const dir = process.env.RELAY_TEST_PG_BIN ?? path.join(os.homedir(), '.cache', 'relay-ci', 'postgresql-18', 'bin');
  const tool = path.join(dir, name);
  if (!fs.existsSync(tool)) throw new Error(`${tool} is missing: run bash scripts/install-pg-client-tools.sh (or set RELAY_TEST_PG_BIN)`);
  return tool;
}

async function query<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** Rows of every table of the relay's schema, by table. */
async function rowCounts(url: string): Promise<Record<string, number>> {
  const tables = await query<{ name: string }>(url, `select tablename as name from pg_tables where schemaname = 'public' order by 1`);
  const counts: Record<string, number> = {};
  for (const { name } of tables) counts[name] = Number((await query<{ n: string }>(url, `select count(*) as n from "${name}"`))[0].n);
  return counts;
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface DeliverySnapshot {
  id: string;
  event_id: string;
  destination_id: string;
  status: string;
  attempt_count: number;
  dead_lettered_at: string | null;
}

/**
 * The restore drill of docs/operations.md, as an operator runs it (issue 35): a relay populated through its API
 * (a source, three destinations: one that answers, one that fails until its deliveries are dead-lettered, one that
 * fails and waits an hour for its retry), its database dumped with pg_dump and restored with pg_restore into a fresh
 * PostgreSQL, the service started on that one: every row of every table is there, the same events, deliveries and
 * attempts through the API, the user signs in with the same password, and a new webhook is delivered (the restored
 * secrets decrypt with the same RELAY_ENCRYPTION_KEYS). Temporal is the same cluster, as when only PostgreSQL is lost.
 */
describe('restore drill: pg_dump, pg_restore into a fresh PostgreSQL, the service on it', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-restore-'));
  let source: TestDatabase;
  let restored: { url: string; stop(): Promise<void> };
  let original: ServiceProcess;
  let again: ServiceProcess | undefined;
  let ok: Receiver;
  let failing: Receiver;

  beforeAll(async () => {
    fs.chmodSync(work, 0o755);
    pgTool('pg_dump');
    [source, ok, failing] = await Promise.all([createTestDatabase(), startReceiver(), startReceiver()]);
    failing.respond = () => ({ status: 500, body: 'down' });
    original = await startServiceProcess({ databaseUrl: source.url });
  }, 120_000);
  afterAll(async () => {
    await again?.stop();
    await original?.stop();
    await restored?.stop();
    await Promise.all([ok?.close(), failing?.close(), source?.drop()]);
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('restores every event, delivery and attempt, and delivers a new webhook', async () => {
    // Populate through the running service, as its users do.
    const base = original.baseUrl;
    const email = uniqueEmail('restore');
    const token = (await rest(base, 'POST', '/v1/auth/signup', { body: { email, password: PASSWORD } })).body.access_token;
    const call = (method: string, url: string, body?: unknown) => rest(base, method, url, { token, body });
    const endpoint = (await call('POST', '/v1/endpoints', { name: 'Shop' })).body;
    const destination = async (name: string, url: string, retry_policy: unknown) => {
      const created = (await call('POST', '/v1/destinations', { name, type: 'webhook', webhook_url: url, retry_policy })).body;
      await call('POST', `/v1/endpoints/${endpoint.id}/destinations`, { destination_id: created.id });
      return created.id as string;
    };
    const delivered = await destination('Answers', ok.url, { max_attempts: 3, backoff: [1, 1] });
    const deadLettered = await destination('Fails', failing.url, { max_attempts: 2, backoff: [1] });
    const waiting = await destination('Fails, retries in an hour', `${failing.url}/later`, { max_attempts: 3, backoff: [3600, 3600] });
    const events: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await postSigned(base, endpoint.slug, endpoint.signing_secret, { order: i, note: `order ${i} ✓` });
      expect(res.status).toBe(202);
      events.push(res.body.event_id!);
    }
    const deliveriesOf = async (b: string, t: string) => {
      const all: DeliverySnapshot[] = [];
      for (const id of events) all.push(...(await rest(b, 'GET', `/v1/deliveries?event_id=${id}`, { token: t })).body.data);
      return all.sort((a, b) => (a.id < b.id ? -1 : 1));
    };
    const settled = (all: DeliverySnapshot[]) =>
      all.length === 15 &&
      all.every((d) =>
        d.destination_id === delivered ? d.status === 'success' : d.destination_id === deadLettered ? d.dead_lettered_at !== null : d.status === 'retrying',
      );
    const before = await until('the deliveries to settle', () => deliveriesOf(base, token), settled);
    expect(new Set(before.filter((d) => d.destination_id === waiting).map((d) => d.attempt_count))).toEqual(new Set([1]));
    const attemptsOf = async (b: string, t: string) => (await rest(b, 'GET', `/v1/attempts?endpoint_id=${endpoint.id}&limit=200`, { token: t })).body.data.map((a: { id: string }) => a.id).sort();
    const attemptsBefore = await attemptsOf(base, token);
    expect(attemptsBefore.length).toBe(5 + 10 + 5);
    const eventsBefore = (await call('GET', `/v1/events?endpoint_id=${endpoint.id}&limit=200`)).body.data;
    // Background work (operational events for the dead letters, issues) settles before the service stops.
    await until('operational events of the dead letters', () => query<{ n: string }>(source.url, `select count(*) as n from events e join webhook_endpoints w on w.id = e.endpoint_id where w.is_system`), (r) => Number(r[0].n) > 0);
    expect(await original.stop()).toBe(0);
    const rowsBefore = await rowCounts(source.url);

    // Back up: pg_dump's custom format, the database as it is (it takes a consistent snapshot even while running).
    const dump = path.join(work, 'relay.dump');
    execFileSync(pgTool('pg_dump'), ['--format=custom', `--file=${dump}`, `--dbname=${source.url}`]);
    // Restore into a fresh PostgreSQL server (its database created empty, owned by another user).
    restored = await startPostgresChild({ dataDir: path.join(work, 'pg'), port: await freePort() });
    execFileSync(pgTool('pg_restore'), ['--no-owner', '--no-privileges', '--exit-on-error', `--dbname=${restored.url}`, dump]);
    expect(await rowCounts(restored.url)).toEqual(rowsBefore);
    expect(rowsBefore.delivery_attempts).toBeGreaterThanOrEqual(attemptsBefore.length);

    // The service on the restored database, on the same Temporal task queue (the waiting retries' workflows are there).
    again = await startServiceProcess({ databaseUrl: restored.url, taskQueue: original.taskQueue });
    const restoredToken = (await rest(again.baseUrl, 'POST', '/v1/auth/login', { body: { email, password: PASSWORD } })).body.access_token;
    expect(restoredToken).toEqual(expect.any(String));
    expect((await rest(again.baseUrl, 'GET', `/v1/events?endpoint_id=${endpoint.id}&limit=200`, { token: restoredToken })).body.data).toEqual(eventsBefore);
    expect(await deliveriesOf(again.baseUrl, restoredToken)).toEqual(before);
    expect(await attemptsOf(again.baseUrl, restoredToken)).toEqual(attemptsBefore);

    // A new webhook, signed with the restored source's secret, reaches the restored destination's (encrypted) URL.
    const received = ok.requests.length;
    const fresh = await postSigned(again.baseUrl, endpoint.slug, endpoint.signing_secret, { order: 'after the restore' });
    expect(fresh.status).toBe(202);
    await ok.waitFor(received + 1);
    expect(JSON.parse(ok.requests.at(-1)!.body)).toEqual({ order: 'after the restore' });
    const [newDelivery] = await until(
      'the new event delivered',
      async () => (await rest(again!.baseUrl, 'GET', `/v1/deliveries?event_id=${fresh.body.event_id}&destination_id=${delivered}`, { token: restoredToken })).body.data,
      (d: DeliverySnapshot[]) => d[0]?.status === 'success',
    );
    expect(newDelivery.status).toBe('success');
  }, 300_000);
});
