import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { msToTs } from '@temporalio/common/lib/time';
import { Client } from 'pg';
import { pgClientConfig } from '../db/pg-connection';
import type { Logger } from '../common/logger';
import type { TemporalTls } from '../config/temporal-tls';
import { packageRoot } from '../http/dashboard';
import { type TemporalSettings, connectTemporal } from '../temporal/client';
import { ensureSearchAttributes } from '../temporal/ensure-search-attributes';
import { SEARCH_ATTRIBUTE_NAMES } from '../temporal/search-attributes';
import type { RunningService } from './postgres';
import { stopChild } from './child-process';
import { waitForPort } from './temporal';
import { onPath } from './temporal-cli';

/** The config template and dynamic config, shared with docker-compose.yml. */
const DEPLOY_DIR = path.join(packageRoot(), 'deploy', 'temporal');

const INSTALL_HINT =
  'Build it with `npm run temporal:server:install` (go install from the Go module proxy into `$(go env GOPATH)/bin`), ' +
  'or set TEMPORAL_SERVER_PATH to an existing `temporal-server` binary (its `temporal-sql-tool` beside it or on PATH).';

export interface TemporalServerBinaries {
  server: string;
  sqlTool: string;
}

function goBin(): string | undefined {
  const out = spawnSync('go', ['env', 'GOPATH'], { encoding: 'utf8' });
  const gopath = out.status === 0 ? out.stdout.trim().split(path.delimiter)[0] : '';
  return gopath ? path.join(gopath, 'bin') : undefined;
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `temporal-server`: TEMPORAL_SERVER_PATH, then PATH, then `$(go env GOPATH)/bin`; `temporal-sql-tool` beside it, then the same places. */
export function findTemporalServer(explicit: string | undefined): TemporalServerBinaries {
  const gobin = goBin();
  const inGoBin = (name: string) => (gobin && executable(path.join(gobin, name)) ? path.join(gobin, name) : undefined);
  if (explicit && !executable(explicit)) throw new Error(`TEMPORAL_SERVER_PATH: ${explicit} is not an executable file. ${INSTALL_HINT}`);
  const server = explicit ?? onPath('temporal-server') ?? inGoBin('temporal-server');
  if (!server) throw new Error(`temporal-server was not found. ${INSTALL_HINT}`);
  const beside = path.join(path.dirname(server), 'temporal-sql-tool');
  const sqlTool = executable(beside) ? beside : (onPath('temporal-sql-tool') ?? inGoBin('temporal-sql-tool'));
  if (!sqlTool) throw new Error(`temporal-sql-tool was not found (looked beside ${server}, on PATH and in GOPATH/bin). ${INSTALL_HINT}`);
  return { server, sqlTool };
}

/**
 * A free loopback port below 32768: Temporal stores the membership port in a PostgreSQL
 * `smallint` (cluster_membership.rpc_port), so the kernel's ephemeral range (32768+) fails.
 */
async function lowLoopbackPort(taken: Set<number>): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer().unref();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
  throw new Error('no free loopback port between 20000 and 32000');
}

/** Fills `{{name}}` placeholders; an unknown placeholder is a bug in the template, so it throws. */
export function renderTemplate(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`temporal server config template: no value for {{${name}}}`);
    return String(values[name]);
  });
}

/** Creates the database unless it exists; returns whether it was created. */
async function createDatabase(adminUrl: string, name: string): Promise<boolean> {
  const admin = new Client(pgClientConfig(adminUrl));
  await admin.connect();
  try {
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount) return false;
    await admin.query(`create database "${name}"`);
    return true;
  } finally {
    await admin.end();
  }
}

function runSqlTool(sqlTool: string, pg: URL, database: string, args: string[]): void {
  const out = spawnSync(
    sqlTool,
    ['--plugin', 'postgres12', '--endpoint', pg.hostname, '--port', pg.port || '5432', '--user', decodeURIComponent(pg.username), '--database', database, ...args],
    { encoding: 'utf8', env: { ...process.env, SQL_PASSWORD: decodeURIComponent(pg.password) } },
  );
  if (out.status !== 0) {
    throw new Error(`temporal-sql-tool ${args.join(' ')} on ${database} failed (exit ${out.status}): ${(out.stderr || out.stdout).trim().slice(-2000)}`);
  }
}

/** Creates the schema of a new database, then brings any database up to the binary's embedded schema version. */
async function prepareDatabase(sqlTool: string, pgUrl: string, database: string, schema: 'temporal' | 'visibility'): Promise<void> {
  const created = await createDatabase(pgUrl, database);
  const pg = new URL(pgUrl);
  if (created) runSqlTool(sqlTool, pg, database, ['setup-schema', '--version', '0.0']);
  runSqlTool(sqlTool, pg, database, ['update-schema', '--schema-name', `postgresql/v12/${schema}`]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Retries `attempt` until it resolves, the deadline passes or the server exits
 * (it answers before its namespace cache has loaded).
 */
async function retry<T>(what: string, until: { deadline: number; child: ChildProcess }, attempt: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (until.child.exitCode !== null) throw new Error(`temporal server exited with code ${until.child.exitCode} while ${what}`);
      if (Date.now() > until.deadline) throw new Error(`temporal server: ${what} did not succeed in time: ${(err as Error).message}`);
      await sleep(250);
    }
  }
}

/** Registers the namespace unless it exists, and waits until the frontend serves it with the relay's search attributes. */
async function prepareNamespace(settings: TemporalSettings, until: { deadline: number; child: ChildProcess }): Promise<void> {
  const { namespace } = settings;
  const connection = await retry('connecting', until, () => connectTemporal(settings, 2_000));
  try {
    await retry(`registering namespace ${namespace}`, until, async () => {
      try {
        await connection.workflowService.registerNamespace({
          namespace,
          workflowExecutionRetentionPeriod: msToTs('3 days'),
        });
      } catch (err) {
        if (!/already exists/i.test((err as Error).message)) throw err;
      }
    });
    await retry('registering search attributes', until, () => ensureSearchAttributes(settings));
    await retry('serving the namespace', until, async () => {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
      const missing = SEARCH_ATTRIBUTE_NAMES.filter((name) => !(name in (customAttributes ?? {})));
      if (missing.length) throw new Error(`search attributes not visible yet: ${missing.join(', ')}`);
      await connection.workflowService.countWorkflowExecutions({ namespace, query: '' });
    });
  } finally {
    await connection.close();
  }
}

export interface TemporalServerOptions {
  binaries: TemporalServerBinaries;
  /** PostgreSQL URL of a role that may create databases (the embedded PostgreSQL's). */
  postgresUrl: string;
  /** Where the rendered config, dynamic config and server log go. */
  dir: string;
  /** Frontend gRPC port (the relay's TEMPORAL_ADDRESS). */
  port: number;
  namespace: string;
  /** Fixed when the databases are first created. */
  historyShards?: number;
  database?: string;
  visibilityDatabase?: string;
  /** Serve the frontend over TLS (PEM files); with `clientCaFile`, mutual TLS: clients must present a certificate it signed. */
  tls?: TemporalServerTls;
  /** Turn on the server's JWT authorizer (needs `tls`: API keys are sent only over TLS). */
  authorization?: TemporalServerAuthorization;
  log?: Logger;
}

/**
 * `global.authorization` with the server's own JWT claim mapper and authorizer: every call
 * must carry `authorization: Bearer <JWT>` signed by a key of the JWKS, whose `permissions`
 * claim holds `<namespace>:<read|write|admin>` entries (`temporal-system:<role>`: every namespace and the cluster).
 */
export interface TemporalServerAuthorization {
  /** Where the server fetches the JWKS (http(s):// or file://), at start and every minute. */
  jwksUri: string;
  /** The key the launcher presents to register the namespace and the search attributes (`temporal-system:admin`). */
  apiKey: string;
}

export interface TemporalServerTls {
  certFile: string;
  keyFile: string;
  /** Mutual TLS: the CA of accepted client certificates (the server's own certificate, which its internal services present, included). */
  clientCaFile?: string;
  /** CA of the server's certificate, and the name in it, for the server's internal clients and the launcher's own. */
  caFile: string;
  serverName: string;
  /** What the launcher presents when it registers the namespace (a client certificate under mutual TLS). */
  client: TemporalTls;
}

/** The `global.tls` block: the frontend (what the relay connects to) and the server's own clients of it. */
function tlsBlock(tls: TemporalServerTls | undefined): string {
  if (!tls) return '';
  const server = [
    '      server:',
    `        certFile: "${tls.certFile}"`,
    `        keyFile: "${tls.keyFile}"`,
    ...(tls.clientCaFile ? ['        requireClientAuth: true', `        clientCaFiles: ["${tls.clientCaFile}"]`] : []),
  ];
  const client = ['      client:', `        serverName: "${tls.serverName}"`, `        rootCaFiles: ["${tls.caFile}"]`];
  return [
    '  tls:',
    '    internode:',
    ...server,
    ...client,
    '    frontend:',
    ...server,
    ...client,
    // The server's system worker calls its own frontend: under mutual TLS it presents the server's certificate.
    '    systemWorker:',
    `      certFile: "${tls.certFile}"`,
    `      keyFile: "${tls.keyFile}"`,
    ...client,
  ].join('\n');
}

/** The `global.authorization` block. */
function authorizationBlock(auth: TemporalServerAuthorization | undefined): string {
  if (!auth) return '';
  return [
    '  authorization:',
    '    jwtKeyProvider:',
    `      keySourceURIs: ["${auth.jwksUri}"]`,
    '      refreshInterval: 1m',
    '    permissionsClaimName: permissions',
    '    authorizer: default',
    '    claimMapper: default',
  ].join('\n');
}

/**
 * Under an authorizer the server's own system worker (schedules, namespace deletion) cannot
 * call the public frontend without credentials: it calls an `internal-frontend`, which only
 * the cluster's services reach, over the internode TLS settings.
 */
function internalFrontendBlock(ports: Record<string, number> | undefined): string {
  if (!ports) return '';
  return [
    '  internal-frontend:',
    '    rpc:',
    `      grpcPort: ${ports.internalFrontendPort}`,
    `      membershipPort: ${ports.internalFrontendMembershipPort}`,
    '      bindOnLocalHost: true',
  ].join('\n');
}

/**
 * Runs a real Temporal server (all four services in one process) on PostgreSQL:
 * creates its two databases and schemas with `temporal-sql-tool`, renders
 * deploy/temporal/server.yaml, starts `temporal-server`, registers the namespace
 * and the relay's search attributes, and resolves once workflows can start.
 */
export async function startTemporalServer(opts: TemporalServerOptions): Promise<RunningService & { logFile: string }> {
  if (opts.authorization && !opts.tls) throw new Error('startTemporalServer: authorization needs tls (API keys are sent only over TLS)');
  const database = opts.database ?? 'temporal';
  const visibilityDatabase = opts.visibilityDatabase ?? 'temporal_visibility';
  await prepareDatabase(opts.binaries.sqlTool, opts.postgresUrl, database, 'temporal');
  await prepareDatabase(opts.binaries.sqlTool, opts.postgresUrl, visibilityDatabase, 'visibility');

  fs.mkdirSync(opts.dir, { recursive: true });
  const dynamicConfigFile = path.join(opts.dir, 'dynamic-config.yaml');
  fs.copyFileSync(path.join(DEPLOY_DIR, 'dynamic-config.yaml'), dynamicConfigFile);
  const pg = new URL(opts.postgresUrl);
  const ports: Record<string, number> = {};
  const taken = new Set([opts.port]);
  const names = ['frontendHttp', 'frontendMembership', 'history', 'historyMembership', 'matching', 'matchingMembership', 'worker', 'workerMembership'];
  if (opts.authorization) names.push('internalFrontend', 'internalFrontendMembership');
  for (const name of names) {
    ports[`${name}Port`] = await lowLoopbackPort(taken);
  }
  const configFile = path.join(opts.dir, 'server.yaml');
  fs.writeFileSync(
    configFile,
    renderTemplate(fs.readFileSync(path.join(DEPLOY_DIR, 'server.yaml'), 'utf8'), {
      logLevel: 'warn',
      historyShards: opts.historyShards ?? 4,
      database,
      visibilityDatabase,
      pgHost: pg.hostname,
      pgPort: pg.port || '5432',
      pgUser: decodeURIComponent(pg.username),
      pgPassword: decodeURIComponent(pg.password),
      frontendPort: opts.port,
      ...ports,
      dynamicConfigFile,
      globalTls: tlsBlock(opts.tls),
      globalAuthorization: authorizationBlock(opts.authorization),
      internalFrontend: internalFrontendBlock(opts.authorization && ports),
    }),
    { mode: 0o600 },
  );

  const logFile = path.join(opts.dir, 'temporal-server.log');
  const logFd = fs.openSync(logFile, 'a');
  // Without an authorizer the server wants --allow-no-auth; with one, the internal frontend is a service to start too.
  const args = opts.authorization
    ? ['--config-file', configFile, 'start', ...['frontend', 'internal-frontend', 'history', 'matching', 'worker'].flatMap((s) => ['--service', s])]
    : ['--config-file', configFile, '--allow-no-auth', 'start'];
  const child = spawn(opts.binaries.server, args, { stdio: ['ignore', logFd, logFd] });
  fs.closeSync(logFd);
  const stop = () => stopChild(child);
  const address = `127.0.0.1:${opts.port}`;
  try {
    const deadline = Date.now() + 120_000;
    await waitForPort(opts.port, 120_000, child);
    await prepareNamespace({ address, namespace: opts.namespace, tls: opts.tls?.client, apiKey: opts.authorization?.apiKey }, { deadline, child });
  } catch (err) {
    await stop();
    const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n');
    throw new Error(`${(err as Error).message}\n--- ${logFile} (last lines) ---\n${tail}`);
  }
  opts.log?.info({ address, logFile }, 'Temporal server (PostgreSQL) ready');
  return { url: address, logFile, stop };
}
