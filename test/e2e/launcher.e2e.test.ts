import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { startReceiver } from '../delivery/receiver';
import { rest } from '../support/api';
import { type Launched, interrupt as stop, launch as start, launcherEnv, waitReady } from '../support/launcher-process';

const running: Launched[] = [];
function launch(env: Record<string, string>): Launched {
  const launched = start(env);
  running.push(launched);
  return launched;
}

describe('npm start on the embedded default', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-launcher-'));
  let env: Record<string, string>;

  beforeAll(async () => {
    fs.chmodSync(dataDir, 0o755);
    // A built dashboard (its index.html is what counts), so the banner names its address.
    const dashboardDir = path.join(dataDir, 'dashboard');
    fs.mkdirSync(dashboardDir);
    fs.writeFileSync(path.join(dashboardDir, 'index.html'), '<!doctype html><title>relay</title>');
    env = { ...(await launcherEnv(dataDir)), RELAY_DASHBOARD_DIR: dashboardDir };
  });
  afterAll(async () => {
    await Promise.all(running.map(stop));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts PostgreSQL, Temporal, the API and the worker; stops them on Ctrl+C; finds its data again', async () => {
    const first = launch(env);
    const ready = await waitReady(env, first);
    expect(ready).toEqual({ status: 'ready', checks: { database: 'up', temporal: 'up', worker: 'up' } });
    expect(first.output()).toContain(`Temporal        127.0.0.1:${env.RELAY_TEMPORAL_PORT}   (web UI http://127.0.0.1:${env.RELAY_TEMPORAL_UI_PORT})`);
    // The first thing a newcomer needs: where the dashboard is.
    expect(first.output()).toContain(`webhook relay is running\n  dashboard       http://localhost:${env.PORT}/   (sign up, then Get started`);
    expect(fs.existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    expect(fs.existsSync(path.join(dataDir, 'temporal.db'))).toBe(true);
    expect((fs.statSync(path.join(dataDir, 'dev-secrets.json')).mode & 0o777).toString(8)).toBe('600');

    // It knows its dev server's web UI: a delivery links to its workflow there, and the UI serves that page.
    const receiver = await startReceiver();
    try {
      const base = `http://127.0.0.1:${env.PORT}`;
      const token = (await rest(base, 'POST', '/v1/auth/signup', { body: { email: 'me@example.com', password: 'correct horse battery staple' } })).body.access_token;
      const source = (await rest(base, 'POST', '/v1/endpoints', { token, body: { name: 'My source' } })).body;
      const destination = (await rest(base, 'POST', '/v1/destinations', { token, body: { name: 'Mine', type: 'webhook', webhook_url: `${receiver.url}/hook` } })).body;
      await rest(base, 'POST', `/v1/endpoints/${source.id}/destinations`, { token, body: { destination_id: destination.id } });
      const eventId = (await rest(base, 'POST', `/v1/endpoints/${source.id}/test`, { token })).body.event_id;
      await receiver.waitFor(1);
      const [delivery] = (await rest(base, 'GET', `/v1/deliveries?event_id=${eventId}`, { token })).body.data;
      expect(delivery.workflow_url).toBe(`http://127.0.0.1:${env.RELAY_TEMPORAL_UI_PORT}/namespaces/default/workflows/delivery-${delivery.id}`);
      expect((await fetch(delivery.workflow_url)).status).toBe(200);
    } finally {
      await receiver.close();
    }

    // Leave a mark in the database, then stop with Ctrl+C.
    const db = new Client({ connectionString: `postgres://relay:relay@127.0.0.1:${env.RELAY_PG_PORT}/relay` });
    await db.connect();
    await db.query(`insert into organizations (id, name) values ('0190d6a0-0000-7000-8000-000000000001', 'kept across restarts')`);
    await db.end();
    const firstExit = await stop(first);
    if (firstExit !== 0) console.log(first.output());
    expect(firstExit).toBe(0);
    // Its own connections close before its PostgreSQL stops: a clean stop logs no lost connection.
    expect(first.output()).not.toMatch(/connection lost|terminating connection/);
    await expect(fetch(`http://127.0.0.1:${env.PORT}/healthz`)).rejects.toThrow();

    const second = launch(env);
    try {
      await waitReady(env, second);
      const again = new Client({ connectionString: `postgres://relay:relay@127.0.0.1:${env.RELAY_PG_PORT}/relay` });
      await again.connect();
      const { rows } = await again.query(`select name from organizations where id = '0190d6a0-0000-7000-8000-000000000001'`);
      await again.end();
      expect(rows).toEqual([{ name: 'kept across restarts' }]);
    } finally {
      expect(await stop(second)).toBe(0);
    }
  }, 400_000);
});
