/**
 * The service's own commands (`relay start`, `api`, `worker`, `migrate`, …),
 * loaded only when one of them runs, so that the client commands (`login`,
 * `listen`) start without the server's dependencies.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppContainer } from '../app/container';
import { createLogger, type Logger } from '../common/logger';
import { ConfigError, type Config } from '../config/config';
import { withWorkerPoolFloor } from '../config/database-pool';
import { dashboardDir, packageRoot } from '../http/dashboard';
import { type RunningService, startEmbeddedPostgres } from './postgres';
import { type NeededPort, assertPortsFree } from './ports';
import { LaunchRecord } from './leftovers';
import { startTemporalDevServer } from './temporal';
import { checkTemporalCliObtainable, ensureTemporalCli } from './temporal-cli';
import { retryUntilUp } from '../common/backoff';
import { serviceConfig as config } from './service-config';
import { LauncherError } from './launcher-error';

/**
 * The service itself (about 1,500 modules, a second or more of loading on a small machine): required when a command
 * needs it, so that `relay start` loads it while its PostgreSQL and Temporal are starting.
 */
function service() {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    ...(require('../app/container') as typeof import('../app/container')),
    ...(require('../app/processes') as typeof import('../app/processes')),
    ...(require('../db/orm') as typeof import('../db/orm')),
    ...(require('../worker/worker') as typeof import('../worker/worker')),
    ...(require('../worker/worker-supervisor') as typeof import('../worker/worker-supervisor')),
    ...(require('../temporal/client') as typeof import('../temporal/client')),
    ...(require('../temporal/ensure-search-attributes') as typeof import('../temporal/ensure-search-attributes')),
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/** How long a stop signal that arrives during start-up waits for what is starting before stopping anyway. */
const STARTUP_SETTLE_MS = 5_000;

/**
 * Installed before anything starts, so a signal is never missed: one that arrived after `/readyz`
 * answered but before the worker had started used to reach only the Temporal SDK's own handler,
 * which stopped the worker and left the process running. Runs `stop` on SIGINT/SIGTERM once
 * (after what is starting settles, at most STARTUP_SETTLE_MS), then prints one final line naming
 * what stopped and how long it took; a second signal exits at once.
 */
function onShutdown(log: Logger, stopped: string[], stop: () => Promise<void>, startup: Promise<unknown>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(130);
    }
    stopping = true;
    log.debug({ signal }, 'shutting down');
    const began = performance.now();
    const settled = Promise.race([startup.catch(() => undefined), new Promise((r) => setTimeout(r, STARTUP_SETTLE_MS).unref())]);
    settled
      .then(stop)
      .then(() => {
        process.stdout.write(`relay stopped (${stopped.join(', ')}) in ${((performance.now() - began) / 1000).toFixed(1)} s\n`);
        process.exit(0);
      })
      .catch((err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

/** Runs `launch` with the stop signals handled from its first moment; `stop` runs once, on a signal or when `launch` fails. */
async function runUntilSignal(log: Logger, stopped: string[], stop: () => Promise<void>, launch: () => Promise<void>): Promise<void> {
  let stopping: Promise<void> | undefined;
  const stopOnce = () => (stopping ??= stop());
  let settle!: () => void;
  const startup = new Promise<void>((resolve) => (settle = resolve));
  // Before `launch` runs at all: its synchronous first steps (a log line a test waits for) must not beat the handler.
  onShutdown(log, stopped, stopOnce, startup);
  try {
    await launch();
  } catch (err) {
    await stopOnce();
    throw err;
  } finally {
    settle();
  }
}

/** The ports `relay start` will listen on: the API always, PostgreSQL and Temporal when it starts them itself. */
function portsToStart(cfg: Config): NeededPort[] {
  const ports = apiPorts(cfg);
  if (!cfg.DATABASE_URL) ports.push({ setting: 'RELAY_PG_PORT', port: cfg.RELAY_PG_PORT, host: '127.0.0.1', what: 'the embedded PostgreSQL' });
  if (!cfg.TEMPORAL_ADDRESS) {
    ports.push({ setting: 'RELAY_TEMPORAL_PORT', port: cfg.RELAY_TEMPORAL_PORT, host: '127.0.0.1', what: 'the Temporal dev server' });
    ports.push({ setting: 'RELAY_TEMPORAL_UI_PORT', port: cfg.RELAY_TEMPORAL_UI_PORT, host: '127.0.0.1', what: 'the Temporal web UI' });
  }
  return ports;
}

/** The API's port, and its metrics listener's when RELAY_METRICS_PORT is set. */
function apiPorts(cfg: Config): NeededPort[] {
  const ports: NeededPort[] = [{ setting: 'PORT', port: cfg.PORT, host: cfg.HOST, what: 'the HTTP API' }];
  if (cfg.RELAY_METRICS_PORT !== undefined) {
    ports.push({ setting: 'RELAY_METRICS_PORT', port: cfg.RELAY_METRICS_PORT, host: cfg.RELAY_METRICS_HOST ?? cfg.HOST, what: 'the metrics listener' });
  }
  return ports;
}

function startPostgres(base: Config, dataDir: string, log: Logger): Promise<RunningService> {
  log.info({ dataDir: path.join(dataDir, 'postgres') }, 'starting embedded PostgreSQL');
  return startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), port: base.RELAY_PG_PORT, ownProcessGroup: true, log });
}

async function startTemporal(base: Config, dataDir: string, log: Logger): Promise<RunningService & { uiUrl: string }> {
  const cliPath = await ensureTemporalCli({ explicit: base.TEMPORAL_CLI_PATH, toolsDir: path.join(dataDir, 'tools'), log });
  log.info({ cliPath }, 'starting Temporal dev server');
  return startTemporalDevServer({
    cliPath,
    dbFile: path.join(dataDir, 'temporal.db'),
    port: base.RELAY_TEMPORAL_PORT,
    uiPort: base.RELAY_TEMPORAL_UI_PORT,
    namespace: base.TEMPORAL_NAMESPACE,
    ownProcessGroup: true,
    log,
  });
}

export async function start(): Promise<void> {
  const base = config();
  const log = createLogger(base.LOG_LEVEL);
  const dataDir = path.resolve(base.RELAY_DATA_DIR);
  // What the first start would fail on half-way (the Temporal CLI cannot be installed) is said before anything starts.
  if (!base.TEMPORAL_ADDRESS) await checkTemporalCliObtainable(path.join(dataDir, 'tools'), base.TEMPORAL_CLI_PATH);
  const record = new LaunchRecord(dataDir);
  const leftovers = await record.stopLeftovers();
  if (leftovers.length) log.info(`stopped what a previous relay start on ${dataDir} left running: ${leftovers.join(', ')}`);
  await assertPortsFree(portsToStart(base));
  record.begin();
  const services: RunningService[] = [];
  const stopped = ['api', ...(base.RELAY_RUN_WORKER ? ['worker'] : [])];
  let container: AppContainer | undefined;
  // The container's connections close first: stopping PostgreSQL under them would read as a lost connection.
  // Then PostgreSQL (0.2 s) and Temporal (1.2 s: the dev server's own shutdown) together: neither uses the other.
  const stopAll = async () => {
    await container?.close().catch((err) => log.warn({ err }, 'close failed'));
    await Promise.all(services.map((s) => s.stop().catch((err) => log.warn({ err }, 'stop failed'))));
    record.clear();
  };
  await runUntilSignal(log, stopped, stopAll, async () => {
    // PostgreSQL and the Temporal dev server boot side by side (neither uses the other) while the service's modules load.
    const pgStarting = base.DATABASE_URL ? null : startPostgres(base, dataDir, log);
    const temporalStarting = base.TEMPORAL_ADDRESS ? null : startTemporal(base, dataDir, log);
    const { createContainer, migrate, startApiProcess, startWorkerProcess, ensureSearchAttributes, temporalSettings } = service();
    // Both settle before anything is decided, so that one that started is stopped when the other failed.
    const [pg, temporal] = await Promise.allSettled([pgStarting, temporalStarting]);
    if (pg.status === 'fulfilled' && pg.value) {
      services.push(pg.value);
      record.add('postgres', pg.value.pid, 'SIGINT');
      stopped.push('postgres');
    }
    if (temporal.status === 'fulfilled' && temporal.value) {
      services.push(temporal.value);
      record.add('temporal', temporal.value.pid);
      stopped.push('temporal');
    }
    if (pg.status === 'rejected') throw pg.reason;
    if (temporal.status === 'rejected') throw temporal.reason;
    const databaseUrl = pg.value?.url ?? base.DATABASE_URL!;
    const temporalAddress = temporal.value?.url ?? base.TEMPORAL_ADDRESS!;
    const temporalUi = temporal.value?.uiUrl;
    if (!temporal.value) await ensureSearchAttributes(temporalSettings(base));

    // Deliveries link to their workflow in the dev server's UI, unless TEMPORAL_UI_URL names another.
    const cfg = config({ ...process.env, DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_UI_URL: process.env.TEMPORAL_UI_URL || temporalUi });
    container = await createContainer(cfg.RELAY_RUN_WORKER ? withWorkerPoolFloor(cfg) : cfg, log);
    const applied = await migrate(container.orm);
    if (applied.length) log.info({ applied }, 'migrations applied');
    const api = await startApiProcess(container);
    if (cfg.RELAY_RUN_WORKER) await startWorkerProcess(container);

    const lines = [
      '',
      'webhook relay is running',
      `  dashboard       ${dashboardLine(cfg)}`,
      `  API + ingress   ${cfg.publicBaseUrl}   (POST /hooks/:slug, /v1, /healthz, /readyz)`,
      `  GraphQL         ${cfg.publicBaseUrl}/graphql   (subscriptions: ws on the same path)`,
      `  PostgreSQL      ${databaseUrl.replace(/:[^:@/]+@/, ':***@')}`,
      `  Temporal        ${temporalAddress}${temporalUi ? `   (web UI ${temporalUi})` : ''}`,
      `  worker          ${cfg.RELAY_RUN_WORKER ? `task queue ${cfg.TEMPORAL_TASK_QUEUE}` : 'not started (RELAY_RUN_WORKER=0)'}`,
      `  listening on    ${api.url}`,
      'Press Ctrl+C to stop.',
      '',
    ];
    process.stdout.write(lines.join('\n') + '\n');
  });
}

/** Where a newcomer starts: the dashboard's address (its Get started page leads to a delivered webhook), or how to build it. */
function dashboardLine(cfg: Config): string {
  const built = fs.existsSync(path.join(dashboardDir(cfg.RELAY_DASHBOARD_DIR), 'index.html'));
  return built ? `${cfg.publicBaseUrl}/   (sign up, then Get started: a source, a destination and a test event)` : 'not built: run npm run build:dashboard, then start again';
}

export async function api(): Promise<void> {
  const cfg = config();
  await assertPortsFree(apiPorts(cfg));
  const log = createLogger(cfg.LOG_LEVEL);
  let container: AppContainer | undefined;
  // Loaded before the signal handlers: a stop signal never waits for a long synchronous load.
  const { createContainer, startApiProcess } = service();
  await runUntilSignal(log, ['api'], async () => container?.close(), async () => {
    container = await createContainer(cfg, log);
    const server = await startApiProcess(container);
    log.info({ url: server.url }, 'API listening');
  });
}

export async function worker(): Promise<void> {
  const cfg = config();
  const log = createLogger(cfg.LOG_LEVEL);
  let container: AppContainer | undefined;
  const { createContainer, startWorkerProcess, workerStateOf } = service();
  await runUntilSignal(log, ['worker'], async () => container?.close(), async () => {
    log.info({ taskQueue: cfg.TEMPORAL_TASK_QUEUE }, 'worker starting');
    // PostgreSQL away at start is waited out like Temporal (docs/internals/delivery.md "When Temporal or PostgreSQL is away").
    container = await retryUntilUp(log, 'PostgreSQL', () => createContainer(withWorkerPoolFloor(cfg), log), (err) => err instanceof ConfigError);
    await startWorkerProcess(container);
    if (workerStateOf(container) === 'running') log.info({ taskQueue: cfg.TEMPORAL_TASK_QUEUE }, 'worker running');
  });
}

/** `relay migrate --status` exits with this while migrations are pending (0 when none are). */
export const MIGRATIONS_PENDING_EXIT = 6;

export async function runMigrations(opts: { status?: boolean; dryRun?: boolean } = {}): Promise<void> {
  const cfg = config(process.env, { noLinks: true });
  if (!cfg.DATABASE_URL) throw new ConfigError('DATABASE_URL: required by `relay migrate`');
  const { createOrm, migrate, ensureSearchAttributes, temporalSettings } = service();
  const orm = await createOrm(cfg.DATABASE_URL);
  try {
    if (opts.status || opts.dryRun) return await reportMigrations(orm, opts);
    const applied = await migrate(orm).catch((err: Error) => {
      throw new LauncherError(
        `the migrations failed; none of this run's migrations were applied (they run in one transaction): ${err.message.replace(/\s+/g, ' ')}\n` +
          'Fix the cause and run relay migrate again; relay migrate --status lists what is pending.',
      );
    });
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
  } finally {
    await orm.close();
  }
  if (cfg.TEMPORAL_ADDRESS) {
    const added = await ensureSearchAttributes(temporalSettings(cfg));
    process.stdout.write(added.length ? `search attributes added: ${added.join(', ')}\n` : 'search attributes present\n');
  }
}

/** `relay migrate --status` (applied and pending, exit code MIGRATIONS_PENDING_EXIT while any is pending) or `--dry-run` (their SQL). */
async function reportMigrations(orm: MikroORM, opts: { status?: boolean; dryRun?: boolean }): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { migrationStatus, pendingMigrationSql } = require('../db/migration-status') as typeof import('../db/migration-status');
  const out = (line: string) => void process.stdout.write(`${line}\n`);
  if (opts.dryRun) {
    const pending = await pendingMigrationSql(orm);
    if (!pending.length) return out('-- nothing pending: the database is up to date');
    out(`-- relay migrate --dry-run: ${pending.length} pending migration(s), not applied. relay migrate runs them in this order,`);
    out('-- in one transaction, and records each in mikro_orm_migrations (running this SQL by hand records nothing).');
    for (const { name, statements } of pending) {
      out(`\n-- ${name}`);
      for (const sql of statements) out(/;\s*$/.test(sql) ? sql : `${sql};`);
    }
    return;
  }
  const { applied, pending, unknown } = await migrationStatus(orm);
  const newer = new Set(unknown);
  for (const a of applied) out(`applied  ${a.appliedAt.toISOString().slice(0, 19).replace('T', ' ')}  ${a.name}${newer.has(a.name) ? '  (not in this version: applied by a newer one)' : ''}`);
  for (const name of pending) out(`pending  ${' '.repeat(19)}  ${name}`);
  out(
    pending.length
      ? `${applied.length} applied, ${pending.length} pending: relay migrate applies them (in one transaction); relay migrate --dry-run shows their SQL`
      : `${applied.length} applied, none pending: the database is up to date`,
  );
  if (pending.length) process.exitCode = MIGRATIONS_PENDING_EXIT;
}

export async function emitSchema(): Promise<void> {
  // The checkout's schema/, also when this runs from the compiled dist/.
  const out = path.join(packageRoot(), 'schema', 'schema.graphql');
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { printSchema } = require('graphql') as typeof import('graphql');
  const { buildRelaySchema } = require('../graphql/schema') as typeof import('../graphql/schema');
  const { checkedInOpenApiJson } = require('../http/v1') as typeof import('../http/v1');
  /* eslint-enable @typescript-eslint/no-require-imports */
  fs.writeFileSync(out, printSchema(await buildRelaySchema()) + '\n');
  process.stdout.write(`wrote ${out}\n`);
  const openapi = path.join(packageRoot(), 'schema', 'openapi.json');
  const { version } = JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
  fs.writeFileSync(openapi, checkedInOpenApiJson(version));
  process.stdout.write(`wrote ${openapi}\n`);
}


/** `relay bench <name>`: runs bench/<name>.bench.ts. */
export async function bench(name: string, args: string[]): Promise<void> {
  const file = path.resolve(__dirname, '..', '..', 'bench', `${name}.bench`);
  if (!/^[a-z-]+$/.test(name) || !['.ts', '.js'].some((ext) => fs.existsSync(file + ext))) {
    throw new ConfigError(`bench: unknown benchmark "${name}" (see bench/)`);
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  await (require(file) as { main(args: string[]): Promise<void> }).main(args);
}

export async function bundle(): Promise<void> {
  process.stdout.write(`wrote ${await service().bundleWorkflows()}\n`);
}
