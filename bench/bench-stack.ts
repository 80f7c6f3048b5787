import { type ChildProcess, spawn, type StdioOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SecretBox } from '../src/common/secret-box';
import { SERVICE_NODE_FLAGS } from '../src/launcher/node-flags';
import { findTemporalCli, startTemporalDevServer } from '../src/launcher/temporal';
import { freePort } from '../test/support/free-port';

type Stops = Array<() => Promise<unknown> | unknown>;

const REPO = path.resolve(__dirname, '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A Temporal dev server for a bench, its SQLite file on tmpfs when there is one
 * (the figures show CPU cost, not this disk's fsync latency), else in `dataDir`;
 * `stops` stops it and removes the file.
 */
export async function startBenchTemporal(name: string, stops: Stops, dataDir: string): Promise<{ url: string }> {
  const shm = fs.existsSync('/dev/shm') ? fs.mkdtempSync(`/dev/shm/relay-bench-${name}-`) : null;
  if (shm) stops.push(() => fs.rmSync(shm, { recursive: true, force: true }));
  const temporal = await startTemporalDevServer({
    cliPath: findTemporalCli(process.env.TEMPORAL_CLI_PATH),
    dbFile: path.join(shm ?? dataDir, 'temporal.db'),
    port: await freePort(),
    uiPort: await freePort(),
    namespace: 'default',
  });
  stops.push(() => temporal.stop());
  return { url: temporal.url };
}

/** Resolves once the API answers /readyz; throws when its process exits or after a minute. */
export async function waitReady(baseUrl: string, child: ChildProcess, what = 'relay api'): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    if (await fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false)) return;
    await sleep(100);
  }
  throw new Error(`${what} did not become ready`);
}

export type RelayProcesses = Record<'api' | 'worker', { child: ChildProcess; baseUrl: string }>;

/**
 * `relay api` and `relay worker`, each its own Node process, as a user runs
 * them (`npm run api`: SERVICE_NODE_FLAGS; each gets a free PORT); `stops` stops them with SIGINT. Resolves once
 * the API is ready (the worker serves no HTTP).
 */
export async function startRelayProcesses(
  env: NodeJS.ProcessEnv,
  stops: Stops,
  opts: { nodeFlags?: string[]; stdio?: StdioOptions } = {},
): Promise<RelayProcesses> {
  const processes = {} as RelayProcesses;
  for (const command of ['api', 'worker'] as const) {
    const port = await freePort();
    const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, ...(opts.nodeFlags ?? []), path.join(REPO, 'bin', 'relay.js'), command], {
      cwd: REPO,
      env: { ...env, PORT: String(port) },
      stdio: opts.stdio ?? ['ignore', 'inherit', 'inherit'],
    });
    stops.push(() => {
      if (child.exitCode !== null) return undefined;
      child.kill('SIGINT');
      return new Promise((r) => child.once('exit', r));
    });
    processes[command] = { child, baseUrl: `http://127.0.0.1:${port}` };
  }
  await waitReady(processes.api.baseUrl, processes.api.child);
  return processes;
}

/**
 * `relay api` alone, without a Temporal server (reads, the dashboard): resolves with its base URL once
 * `/healthz` answers (not `/readyz`, which waits for Temporal); `stops` stops it with SIGINT.
 */
export async function startBenchApi(env: NodeJS.ProcessEnv, port: number, stops: Stops): Promise<string> {
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, path.join(REPO, 'bin', 'relay.js'), 'api'], { cwd: REPO, env: { ...env, PORT: String(port), RELAY_RUN_WORKER: 'false' }, stdio: ['ignore', 'inherit', 'inherit'] });
  stops.push(() => {
    if (child.exitCode !== null) return undefined;
    child.kill('SIGINT');
    return new Promise((r) => child.once('exit', r));
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; !(await fetch(`${baseUrl}/healthz`).then((r) => r.ok, () => false)); i++) {
    if (child.exitCode !== null || i > 600) throw new Error('relay api did not start');
    await sleep(100);
  }
  return baseUrl;
}

/**
 * The environment of a bench's relay processes (development mode, warnings
 * only, fresh encryption key and JWT secret) and a SecretBox holding the same
 * key, to seal the secrets the bench writes into its rows.
 */
export function benchRelayEnv(name: string, where: { databaseUrl: string; temporalUrl: string; dataDir: string }): { env: NodeJS.ProcessEnv; box: SecretBox } {
  const key = randomBytes(32);
  return {
    env: {
      ...process.env,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      DATABASE_URL: where.databaseUrl,
      TEMPORAL_ADDRESS: where.temporalUrl,
      TEMPORAL_TASK_QUEUE: `${name}-${randomBytes(3).toString('hex')}`,
      RELAY_DATA_DIR: where.dataDir,
      RELAY_ENCRYPTION_KEYS: `bench:${key.toString('base64')}`,
      RELAY_JWT_SECRET: randomBytes(32).toString('hex'),
    },
    box: new SecretBox([{ id: 'bench', key }]),
  };
}
