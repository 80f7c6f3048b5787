import type { Client as PgClient } from 'pg';
import { Client } from 'pg';
import { PASSWORD, uniqueEmail } from '../support/accounts';
import { rest } from '../support/api';
import { hubSignature, postHook } from '../support/ingress-helpers';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestDatabase, type TestDatabase } from '../support/test-env';
import { runCli, tempConfigHome } from './cli-process';

/** A fresh presence row since `since`: the CLI's subscription is open on a running API. */
export async function waitConnected(pg: PgClient, since: Date): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const { rows } = await pg.query('select count(*)::int as n from cli_sessions where connected_at > $1', [since]);
    if (rows[0].n > 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the CLI never connected');
}

/** `relay start` on its own database, a user with one source, and the CLI logged in (its own config home). */
export interface ListenEnv {
  db: TestDatabase;
  service: ServiceProcess;
  pg: PgClient;
  source: { slug: string; secret: string };
  user: { email: string; token: string };
  /** The CLI's environment: its config home. */
  env(): { XDG_CONFIG_HOME: string };
  /** A signed event at the source's ingress (202); its id. */
  ingest(body: string, eventType: string, headers?: Record<string, string>): Promise<string>;
  close(): Promise<void>;
}

export async function startListenEnv(label: string): Promise<ListenEnv> {
  const config = tempConfigHome();
  const db = await createTestDatabase();
  const service = await startServiceProcess({ databaseUrl: db.url });
  const pg = new Client({ connectionString: db.url });
  await pg.connect();
  const email = uniqueEmail(label);
  const token = (await rest(service.baseUrl, 'POST', '/v1/auth/signup', { body: { email, password: PASSWORD } })).body.access_token;
  const endpoint = await rest(service.baseUrl, 'POST', '/v1/endpoints', { token, body: { name: label, slug: `${label}-${Date.now()}` } });
  const source = { slug: endpoint.body.slug, secret: endpoint.body.signing_secret };
  const env = () => ({ XDG_CONFIG_HOME: config.home });
  const login = runCli(['login', '--api-url', service.baseUrl], { ...env(), RELAY_EMAIL: email, RELAY_PASSWORD: PASSWORD });
  if ((await login.exited) !== 0) throw new Error(`relay login failed: ${login.stderr()}`);
  return {
    db,
    service,
    pg,
    source,
    user: { email, token },
    env,
    ingest: async (body, eventType, headers = {}) => {
      const res = await postHook(service.baseUrl, source.slug, body, { ...hubSignature(source.secret, body), 'X-Event-Type': eventType, ...headers });
      if (res.status !== 202) throw new Error(`ingress answered ${res.status}`);
      return res.body.event_id!;
    },
    close: async () => {
      await pg.end();
      await service.stop();
      await db.drop();
      config.cleanup();
    },
  };
}
