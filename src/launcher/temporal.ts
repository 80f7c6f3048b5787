import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Connection as TemporalConnection } from '@temporalio/client';
import type { Logger } from '../common/logger';
import { SEARCH_ATTRIBUTE_NAMES } from '../temporal/search-attributes';
import { stopChild } from './child-process';
import { LauncherError } from './launcher-error';
import type { RunningService } from './postgres';
import { onPath, temporalCliInstructions } from './temporal-cli';

/**
 * TEMPORAL_CLI_PATH, then PATH (tests and benches; \`relay start\` also installs it: ensureTemporalCli).
 * Throws the paste-able instructions when neither has it.
 */
export function findTemporalCli(explicit: string | undefined): string {
  const found = explicit ?? onPath('temporal');
  if (found && fs.existsSync(found)) return found;
  throw new LauncherError(temporalCliInstructions(path.resolve(process.env.RELAY_DATA_DIR ?? '.relay', 'tools')));
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
 * And one that bounds its memory (`npm run bench:user`, the PSS rows): the cache of workflows'
 * mutable state holds 512 workflows, not the dev server's 8,096; a delivery's workflow closes in
 * its first workflow task, so the closed ones filled it (about half of the dev server's live heap
 * after a few thousand deliveries) and a workflow still running is read back from SQLite on a miss.
 */
export const DEV_SERVER_TUNING: readonly string[] = [
  '--dynamic-config-value', 'matching.numTaskqueueReadPartitions=1',
  '--dynamic-config-value', 'matching.numTaskqueueWritePartitions=1',
  '--sqlite-pragma', 'journal_mode=wal',
  '--sqlite-pragma', 'synchronous=normal',
  '--dynamic-config-value', 'history.hostLevelCacheMaxSize=512',
];

/**
 * The dev server's Go garbage collector: collect when the heap has grown by half since the last collection
 * (Go's default is by all of it), so that it holds about 1.5 times its live heap instead of twice; a GOGC or
 * GOMEMLIMIT of the user's own wins.
 */
export function devServerEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return env.GOGC === undefined && env.GOMEMLIMIT === undefined ? { ...env, GOGC: '50' } : env;
}

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
  /** Its own process group, so a terminal's Ctrl+C reaches only the launcher, which stops it in order. */
  ownProcessGroup?: boolean;
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
  const child = spawn(opts.cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: opts.ownProcessGroup === true, env: devServerEnv(process.env) });
  child.stdout?.on('data', (d: Buffer) => opts.log?.debug({ temporal: d.toString().trim() }));
  child.stderr?.on('data', (d: Buffer) => opts.log?.debug({ temporal: d.toString().trim() }));
  await waitForPort(opts.port, 60_000, child);
  await waitForFrontend(`127.0.0.1:${opts.port}`, Date.now() + 60_000);
  return {
    url: `127.0.0.1:${opts.port}`,
    uiUrl: `http://127.0.0.1:${opts.uiPort}`,
    pid: child.pid,
    stop: () => stopChild(child),
  };
}

/** The port opens before the frontend serves ("Frontend is not healthy yet" on a loaded machine): wait for an answer. */
async function waitForFrontend(address: string, deadline: number): Promise<void> {
  // Required here, not at the top: the dev server is spawned first and boots while the client's modules load.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Connection } = require('@temporalio/client') as { Connection: typeof TemporalConnection };
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
