import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { printSchema } from 'graphql';
import { createContainer } from '../app/container';
import { startApiProcess, startWorkerProcess } from '../app/processes';
import { createLogger, type Logger } from '../common/logger';
import { ConfigError, type Config, loadConfig } from '../config/config';
import { createOrm, migrate } from '../db/orm';
import { buildRelaySchema } from '../graphql/schema';
import { dashboardDir, packageRoot } from '../http/dashboard';
import { withDevSecrets } from '../launcher/dev-secrets';
import { type RunningService, startEmbeddedPostgres } from '../launcher/postgres';
import { type NeededPort, PortInUseError, assertPortsFree } from '../launcher/ports';
import { findTemporalCli, startTemporalDevServer } from '../launcher/temporal';
import { ensureSearchAttributes } from '../temporal/ensure-search-attributes';
import { bundleWorkflows } from '../worker/worker';

const USAGE = `relay <command>

  start              everything in one process: API, GraphQL, worker; starts an embedded PostgreSQL
                     and a Temporal dev server under RELAY_DATA_DIR unless DATABASE_URL / TEMPORAL_ADDRESS are set
  api                the HTTP API only (needs DATABASE_URL and TEMPORAL_ADDRESS)
  worker             the Temporal worker only (needs DATABASE_URL and TEMPORAL_ADDRESS)
  migrate            apply database migrations and register Temporal search attributes
  emit-schema        write the GraphQL SDL to schema/schema.graphql
  bundle-workflows   pre-bundle workflow code for production workers
  build-dashboard    build the web dashboard into dashboard/dist (--if-missing: only when it is not built)
  bench <name>       run a benchmark (ingress, delivery, render, sending)`;

function config(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = env.RELAY_DATA_DIR ?? '.relay';
  return loadConfig(withDevSecrets(env, dataDir));
}

/** Runs `stop` on SIGINT/SIGTERM once; a second signal exits at once. */
function onShutdown(log: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(130);
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    stop()
      .then(() => process.exit(0))
      .catch((err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

/** The ports `relay start` will listen on: the API always, PostgreSQL and Temporal when it starts them itself. */
function portsToStart(cfg: Config): NeededPort[] {
  const ports: NeededPort[] = [{ setting: 'PORT', port: cfg.PORT, host: cfg.HOST, what: 'the HTTP API' }];
  if (!cfg.DATABASE_URL) ports.push({ setting: 'RELAY_PG_PORT', port: cfg.RELAY_PG_PORT, host: '127.0.0.1', what: 'the embedded PostgreSQL' });
  if (!cfg.TEMPORAL_ADDRESS) {
    ports.push({ setting: 'RELAY_TEMPORAL_PORT', port: cfg.RELAY_TEMPORAL_PORT, host: '127.0.0.1', what: 'the Temporal dev server' });
    ports.push({ setting: 'RELAY_TEMPORAL_UI_PORT', port: cfg.RELAY_TEMPORAL_UI_PORT, host: '127.0.0.1', what: 'the Temporal web UI' });
  }
  return ports;
}

async function start(): Promise<void> {
  const base = config();
  const log = createLogger(base.LOG_LEVEL);
  await assertPortsFree(portsToStart(base));
  const dataDir = path.resolve(base.RELAY_DATA_DIR);
  const services: RunningService[] = [];
  const stopServices = async () => {
    for (const s of services.reverse()) await s.stop().catch((err) => log.warn({ err }, 'stop failed'));
  };
  try {
    let databaseUrl = base.DATABASE_URL;
    if (!databaseUrl) {
      log.info({ dataDir: path.join(dataDir, 'postgres') }, 'starting embedded PostgreSQL');
      const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'postgres'), port: base.RELAY_PG_PORT, log });
      services.push(pg);
      databaseUrl = pg.url;
    }
    let temporalAddress = base.TEMPORAL_ADDRESS;
    let temporalUi: string | undefined;
    if (!temporalAddress) {
      const cliPath = findTemporalCli(base.TEMPORAL_CLI_PATH, log);
      log.info({ cliPath }, 'starting Temporal dev server');
      const temporal = await startTemporalDevServer({
        cliPath,
        dbFile: path.join(dataDir, 'temporal.db'),
        port: base.RELAY_TEMPORAL_PORT,
        uiPort: base.RELAY_TEMPORAL_UI_PORT,
        namespace: base.TEMPORAL_NAMESPACE,
        log,
      });
      services.push(temporal);
      temporalAddress = temporal.url;
      temporalUi = temporal.uiUrl;
    } else {
      await ensureSearchAttributes(temporalAddress, base.TEMPORAL_NAMESPACE);
    }

    const cfg = config({ ...process.env, DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporalAddress });
    const container = await createContainer(cfg, log);
    container.onClose(stopServices);
    const applied = await migrate(container.orm);
    if (applied.length) log.info({ applied }, 'migrations applied');
    const api = await startApiProcess(container);
    if (cfg.RELAY_RUN_WORKER) await startWorkerProcess(container);
    onShutdown(log, () => container.close());

    const lines = [
      '',
      'webhook relay is running',
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
  } catch (err) {
    await stopServices();
    throw err;
  }
}

async function api(): Promise<void> {
  const cfg = config();
  await assertPortsFree([{ setting: 'PORT', port: cfg.PORT, host: cfg.HOST, what: 'the HTTP API' }]);
  const container = await createContainer(cfg);
  const server = await startApiProcess(container);
  onShutdown(container.log, () => container.close());
  container.log.info({ url: server.url }, 'API listening');
}

async function worker(): Promise<void> {
  const cfg = config();
  const container = await createContainer(cfg);
  await startWorkerProcess(container);
  onShutdown(container.log, () => container.close());
  container.log.info({ taskQueue: cfg.TEMPORAL_TASK_QUEUE }, 'worker running');
}

async function runMigrations(): Promise<void> {
  const cfg = config();
  if (!cfg.DATABASE_URL) throw new ConfigError('DATABASE_URL: required by `relay migrate`');
  const orm = await createOrm(cfg.DATABASE_URL);
  try {
    const applied = await migrate(orm);
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
  } finally {
    await orm.close();
  }
  if (cfg.TEMPORAL_ADDRESS) {
    const added = await ensureSearchAttributes(cfg.TEMPORAL_ADDRESS, cfg.TEMPORAL_NAMESPACE);
    process.stdout.write(added.length ? `search attributes added: ${added.join(', ')}\n` : 'search attributes present\n');
  }
}

async function emitSchema(): Promise<void> {
  const out = path.resolve(__dirname, '..', '..', 'schema', 'schema.graphql');
  fs.writeFileSync(out, printSchema(await buildRelaySchema()) + '\n');
  process.stdout.write(`wrote ${out}\n`);
}

/** Runs Vite's build (`npm run build:dashboard`); with ifMissing, only when index.html is absent. */
async function buildDashboard(ifMissing: boolean): Promise<void> {
  const dir = dashboardDir(process.env.RELAY_DASHBOARD_DIR);
  if (ifMissing && fs.existsSync(path.join(dir, 'index.html'))) return;
  const vite = path.join(packageRoot(), 'node_modules', 'vite', 'bin', 'vite.js');
  if (ifMissing && !fs.existsSync(vite)) {
    // A production install without devDependencies: start without the dashboard rather than not at all.
    process.stderr.write('relay: the dashboard is not built and Vite is not installed; the API starts without it (npm run build)\n');
    return;
  }
  const viteConfig = path.join(packageRoot(), 'dashboard', 'vite.config.mts');
  // NODE_ENV=production whatever the caller's (jest sets `test`): otherwise React's development build ships.
  const result = spawnSync(process.execPath, [vite, 'build', '--config', viteConfig, '--outDir', dir], { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (result.status !== 0) throw new Error(`dashboard build failed (exit ${result.status})`);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'start':
      return start();
    case 'api':
      return api();
    case 'worker':
      return worker();
    case 'migrate':
      return runMigrations();
    case 'emit-schema':
      return emitSchema();
    case 'bundle-workflows':
      process.stdout.write(`wrote ${await bundleWorkflows()}\n`);
      return;
    case 'build-dashboard':
      return buildDashboard(rest.includes('--if-missing'));
    case 'bench': {
      const name = rest[0] ?? '';
      const file = path.resolve(__dirname, '..', '..', 'bench', `${name}.bench`);
      if (!/^[a-z-]+$/.test(name) || !['.ts', '.js'].some((ext) => fs.existsSync(file + ext))) {
        throw new ConfigError(`bench: unknown benchmark "${name}" (see bench/)`);
      }
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      await (require(file) as { main(args: string[]): Promise<void> }).main(rest.slice(1));
      return;
    }
    default:
      process.stdout.write(USAGE + '\n');
      if (command && command !== 'help' && command !== '--help') process.exitCode = 2;
  }
}

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`configuration error: ${err.message}\n`);
    process.exit(78);
  }
  if (err instanceof PortInUseError) {
    process.stderr.write(`relay: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`relay: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
