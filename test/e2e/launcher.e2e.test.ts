import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../support/free-port';

const REPO = path.resolve(__dirname, '..', '..');

interface Launched {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** `npm start` with no DATABASE_URL / TEMPORAL_ADDRESS: the launcher starts and stops its own PostgreSQL and Temporal. */
const running: Launched[] = [];

/** Ctrl+C, then SIGKILL if it has not stopped in 30 s; resolves with the exit code. */
async function stop(launched: Launched): Promise<number | null> {
  if (launched.child.exitCode === null) launched.child.kill('SIGINT');
  const timer = setTimeout(() => launched.child.kill('SIGKILL'), 30_000);
  const code = await launched.exited;
  clearTimeout(timer);
  return code;
}

function launch(env: Record<string, string>): Launched {
  const { DATABASE_URL: _db, TEMPORAL_ADDRESS: _t, ...inherited } = process.env;
  const child = spawn(process.execPath, [path.join(REPO, 'bin', 'relay.js'), 'start'], {
    cwd: REPO,
    env: { ...inherited, NODE_ENV: 'development', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const launched = { child, output: () => output, exited: new Promise<number | null>((resolve) => child.once('exit', resolve)) };
  running.push(launched);
  return launched;
}

async function waitReady(url: string, launched: Launched): Promise<unknown> {
  const deadline = Date.now() + 150_000;
  while (Date.now() < deadline) {
    if (launched.child.exitCode !== null) throw new Error(`launcher exited:\n${launched.output()}`);
    try {
      const res = await fetch(`${url}/readyz`);
      // Ready, and the start-up banner printed (it comes once the worker runs too).
      if (res.status === 200 && launched.output().includes('Press Ctrl+C')) return res.json();
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`not ready in time:\n${launched.output()}`);
}

describe('npm start on the embedded default', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-launcher-'));
  let env: Record<string, string>;

  beforeAll(async () => {
    fs.chmodSync(dataDir, 0o755);
    env = {
      RELAY_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      RELAY_PG_PORT: String(await freePort()),
      RELAY_TEMPORAL_PORT: String(await freePort()),
      RELAY_TEMPORAL_UI_PORT: String(await freePort()),
    };
  });
  afterAll(async () => {
    await Promise.all(running.map(stop));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts PostgreSQL, Temporal, the API and the worker; stops them on Ctrl+C; finds its data again', async () => {
    const first = launch(env);
    const ready = await waitReady(`http://127.0.0.1:${env.PORT}`, first);
    expect(ready).toEqual({ status: 'ready', checks: { database: 'up', temporal: 'up' } });
    expect(first.output()).toContain(`Temporal        127.0.0.1:${env.RELAY_TEMPORAL_PORT}   (web UI http://127.0.0.1:${env.RELAY_TEMPORAL_UI_PORT})`);
    expect(fs.existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    expect(fs.existsSync(path.join(dataDir, 'temporal.db'))).toBe(true);
    expect((fs.statSync(path.join(dataDir, 'dev-secrets.json')).mode & 0o777).toString(8)).toBe('600');

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
      await waitReady(`http://127.0.0.1:${env.PORT}`, second);
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
