import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { createContainer } from '../src/app/container';
import { uuidv7 } from '../src/common/ids';
import { createLogger, type Logger } from '../src/common/logger';
import { NOTIFY } from '../src/common/notify-channels';
import { loadConfig } from '../src/config/config';
import { DeliveryDispatcher } from '../src/deliveries/delivery-dispatcher';
import { WorkflowReconciler } from '../src/deliveries/workflow-reconciler';
import { metricsRegistry } from '../src/metrics/metrics';
import { createOrm, migrate } from '../src/db/orm';
import { startEmbeddedPostgres } from '../src/launcher/postgres';
import { DEV_SERVER_TUNING, findTemporalCli, startTemporalDevServer } from '../src/launcher/temporal';
import { findTemporalServer, startTemporalServer } from '../src/launcher/temporal-server';
import { closeHttpAgents } from '../src/sending/http-client';
import { deliveryWorkflowId } from '../src/temporal/delivery-workflows';
import { ensureSearchAttributes } from '../src/temporal/ensure-search-attributes';
import { withWorkerPoolFloor } from '../src/config/database-pool';
import { startRelayWorker } from '../src/worker/worker';
import { runStops, saveFigures, writeBenchSection } from './bench-output';
import { BENCH_PROCESS, type CpuProfile, startCpuSampler, startThreadSampler } from './cpu-sampler';
import { measureCeiling } from './temporal-ceiling';
import { USER_PATH_DEFAULTS, type UserPathFigures, runUserPath } from './user-path';
import { freePort } from '../test/support/free-port';

/**
 * `npm run bench:delivery [-- --events 3000 --ceiling-events 1000 --concurrency 64 --paced-seconds 10
 *   --temporal dev|server|all --no-knobs --no-eager]`
 *
 * In one run:
 * (1) the dev server's knobs: the raw ceiling (empty workflows started and
 *     completed per second) of `temporal server start-dev` with its defaults,
 *     with each knob alone, and with the set the launcher applies (DEV_SERVER_TUNING);
 * (2) for each Temporal target (the dev server with its defaults and with DEV_SERVER_TUNING; the real
 *     Temporal server on PostgreSQL with `--temporal server|all`, or TEMPORAL_ADDRESS):
 *     (a) the ceiling; (b) end to end at full speed: events committed the way
 *     ingress commits them (multi-row INSERT + NOTIFY per transaction), fanned out
 *     by the outbox dispatcher, one delivery workflow each, first attempt POSTed to
 *     a local receiver (a child process): deliveries/s; (c) the same path paced at
 *     half of (b)'s rate, one event per transaction: ingest→first-attempt p50/p99;
 *     plus what one delivery costs Temporal (history events, workflow tasks,
 *     visibility writes) and the CPU of each process during (b).
 * 127.0.0.1 only, bounded in count and time. Writes bench/results/delivery.json
 * and the `## Delivery` section of docs/benchmarks.md.
 */
const REPO = path.resolve(__dirname, '..');
const RESULTS = path.join(REPO, 'bench', 'results', 'delivery.json');

const RECEIVER = `
const http = require('node:http');
const arrivals = {};
const server = http.createServer((req, res) => {
  const id = req.headers['x-service-event-id'];
  if (id && !(id in arrivals)) arrivals[id] = performance.timeOrigin + performance.now();
  req.resume();
  req.on('end', () => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('ok'); });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m === 'count') process.send({ count: Object.keys(arrivals).length });
  if (m === 'dump') process.send({ arrivals });
});
`;

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function arg(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : fallback;
}

function stringArg(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}


function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10;
}

function latencyStats(ingest: Map<string, number>, arrivals: Record<string, number>) {
  const latencies = [...ingest].filter(([id]) => id in arrivals).map(([id, at]) => arrivals[id] - at).sort((a, b) => a - b);
  return { delivered: latencies.length, p50_ms: percentile(latencies, 50), p99_ms: percentile(latencies, 99), max_ms: percentile(latencies, 100) };
}

type Stops = Array<() => Promise<unknown> | unknown>;

type Opts = { events: number; ceilingEvents: number; concurrency: number; pacedSeconds: number; eager: boolean };

/** A running Temporal server to measure against. */
interface TemporalTarget {
  address: string;
  stop(): Promise<void>;
}

/** Each knob alone on top of the dev server's defaults, then the set kept in DEV_SERVER_TUNING. */
const PARTITIONS = ['--dynamic-config-value', 'matching.numTaskqueueReadPartitions=1', '--dynamic-config-value', 'matching.numTaskqueueWritePartitions=1'];
const WAL = ['--sqlite-pragma', 'journal_mode=wal'];
const DEV_KNOBS: Array<{ name: string; tuning: readonly string[]; store: 'tmpfs' | 'disk' }> = [
  { name: 'defaults', tuning: [], store: 'tmpfs' },
  { name: 'log level info (the CLI default; the launcher uses error)', tuning: ['--log-level', 'info'], store: 'tmpfs' },
  { name: 'one task-queue partition', tuning: PARTITIONS, store: 'tmpfs' },
  { name: 'journal_mode=wal', tuning: WAL, store: 'tmpfs' },
  { name: 'journal_mode=wal, synchronous=normal', tuning: [...WAL, '--sqlite-pragma', 'synchronous=normal'], store: 'tmpfs' },
  { name: 'journal_mode=wal, synchronous=off', tuning: [...WAL, '--sqlite-pragma', 'synchronous=off'], store: 'tmpfs' },
  { name: 'DEV_SERVER_TUNING (the set the launcher uses)', tuning: DEV_SERVER_TUNING, store: 'tmpfs' },
  { name: 'defaults, SQLite file on disk', tuning: [], store: 'disk' },
  { name: 'DEV_SERVER_TUNING, SQLite file on disk (as `npm start` runs it)', tuning: DEV_SERVER_TUNING, store: 'disk' },
];

async function startDev(tuning: readonly string[], store: 'tmpfs' | 'disk', diskDir: string): Promise<TemporalTarget> {
  // On tmpfs the figures show CPU cost, not this disk's fsync latency; the disk rows show what `npm start` gets.
  const dir = store === 'tmpfs' && fs.existsSync('/dev/shm') ? fs.mkdtempSync('/dev/shm/relay-bench-temporal-') : fs.mkdtempSync(path.join(diskDir, 'temporal-'));
  const temporal = await startTemporalDevServer({
    cliPath: findTemporalCli(process.env.TEMPORAL_CLI_PATH),
    dbFile: path.join(dir, 'temporal.db'),
    port: await freePort(),
    uiPort: await freePort(),
    namespace: 'default',
    tuning,
  });
  return {
    address: temporal.url,
    stop: async () => {
      await temporal.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The real Temporal server on the bench's PostgreSQL (src/launcher/temporal-server.ts, docs/scaling.md). */
async function startRealServer(postgresUrl: string, dataDir: string, log: Logger): Promise<TemporalTarget> {
  const server = await startTemporalServer({
    binaries: findTemporalServer(process.env.TEMPORAL_SERVER_PATH),
    postgresUrl,
    dir: fs.mkdtempSync(path.join(dataDir, 'temporal-server-')),
    port: await freePort(),
    namespace: 'default',
    log,
  });
  return { address: server.url, stop: () => server.stop() };
}

/** Why the default run (`all`) cannot include the real server, or undefined when it can (`--temporal server` fails loudly instead). */
function realServerMissing(): string | undefined {
  try {
    findTemporalServer(process.env.TEMPORAL_SERVER_PATH);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** What one delivery that succeeded at once cost Temporal: its history, its workflow tasks, its visibility writes. */
async function deliveryCost(client: Client, deliveryId: string) {
  const history = await client.workflow.getHandle(deliveryWorkflowId(deliveryId)).fetchHistory();
  const types = (history.events ?? []).map((e) => {
    const attr = Object.keys(e).find((k) => k.endsWith('EventAttributes') && (e as Record<string, unknown>)[k]);
    return attr ? attr.replace(/EventAttributes$/, '').replace(/^./, (c) => c.toUpperCase()) : String(e.eventType);
  });
  const count = (name: string) => types.filter((t) => t === name).length;
  return {
    history_events: types.length,
    event_types: types,
    workflow_tasks: count('WorkflowTaskCompleted'),
    // Visibility is written at start, at each search-attribute upsert and at close.
    visibility_writes: 1 + count('UpsertWorkflowSearchAttributes') + 1,
  };
}

/** This process's eager-start counters (relay_workflow_eager_starts_total). */
async function eagerStarts(): Promise<{ eager: number; fallback: number }> {
  const metric = await metricsRegistry.getSingleMetric('relay_workflow_eager_starts_total')!.get();
  const value = (result: string) => metric.values.find((v) => v.labels.result === result)?.value ?? 0;
  return { eager: value('eager'), fallback: value('fallback') };
}

/** Ceiling, end to end at full speed, paced at half rate, one delivery's cost and the CPU profile, against one Temporal server. */
async function measureEndToEnd(databaseUrl: string, address: string, opts: Opts, log: Logger) {
  const stops: Stops = [];
  try {
    const receiver: ChildProcess = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    stops.push(() => receiver.kill());
    const ask = <T>(msg?: string) =>
      new Promise<T>((resolve) => {
        receiver.once('message', (m) => resolve(m as T));
        if (msg) receiver.send(msg);
      });
    const { port } = await ask<{ port: number }>();
    const processLabels = (pid: number) => (pid === receiver.pid ? 'receiver' : undefined);

    const config = loadConfig({
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: address,
      TEMPORAL_TASK_QUEUE: `bench-delivery-${randomBytes(3).toString('hex')}`,
      RELAY_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
      RELAY_JWT_SECRET: randomBytes(32).toString('hex'),
    });
    // Configured as a process that runs the worker (the pool floor of `relay worker` / `relay start`).
    const container = await createContainer(withWorkerPoolFloor(config), log);
    stops.push(() => container.close());
    await ensureSearchAttributes({ address, namespace: 'default' });

    // The relay's worker first; it idles while the ceiling is measured.
    const worker = await startRelayWorker(container);
    stops.push(() => worker.stop());
    const ceiling = await measureCeiling(address, opts);

    // The relay's outbox dispatcher, beside its worker in this process (as `relay start` runs them).
    const dispatcher = new DeliveryDispatcher(container, { startConcurrency: opts.concurrency });
    if (opts.eager) dispatcher.useEagerStart(new Client({ connection: worker.worker.connection!, namespace: 'default' }));
    await dispatcher.start();
    stops.push(() => dispatcher.stop());
    // And its workflow reconciler, at its production settings (its passes cost nothing per delivery that succeeds).
    const reconciler = new WorkflowReconciler(container);
    reconciler.start();
    stops.push(() => reconciler.stop());

    const knex = container.orm.em.getConnection().getKnex();
    const [org, user, project, endpoint, destination] = [uuidv7(), uuidv7(), uuidv7(), uuidv7(), uuidv7()];
    await knex.raw('insert into organizations (id, name) values (?, ?)', [org, 'Bench']);
    await knex.raw('insert into users (id, email) values (?, ?)', [user, `bench-${user}@example.test`]);
    await knex.raw('insert into projects (id, organization_id, user_id, name, slug) values (?, ?, ?, ?, ?)', [project, org, user, 'Bench', `bench-${project}`]);
    await knex.raw('insert into webhook_endpoints (id, project_id, name, slug, signing_secret_enc) values (?, ?, ?, ?, ?)', [
      endpoint, project, 'Bench', `bench-${endpoint}`, container.secrets.seal('bench-secret'),
    ]);
    await knex.raw('insert into destinations (id, project_id, name, type, webhook_url_enc, signing_secret_enc) values (?, ?, ?, ?, ?, ?)', [
      destination, project, 'Receiver', 'webhook', container.secrets.seal(`http://127.0.0.1:${port}/hook`), container.secrets.seal('bench-destination-secret'),
    ]);
    await knex.raw('insert into endpoint_destinations (id, endpoint_id, destination_id) values (?, ?, ?)', [uuidv7(), endpoint, destination]);
    const payload = JSON.stringify({ type: 'order.created', data: { id: 'ord_1', amount: 4200, note: 'x'.repeat(400) } });

    /** Commits `n` events in one transaction with the outbox NOTIFY, as ingress's group commit does; records commit times. */
    const ingest = new Map<string, number>();
    const commitEvents = async (n: number) => {
      const ids = Array.from({ length: n }, () => uuidv7());
      await knex.transaction(async (trx) => {
        await trx.raw(
          `insert into events (id, endpoint_id, project_id, organization_id, event_type, payload, headers, status)
           select id, ?, ?, ?, 'order.created', ?::json, '{}'::json, 'received' from unnest(?::uuid[]) as id`,
          [endpoint, project, org, payload, `{${ids.join(',')}}`],
        );
        await trx.raw(`select pg_notify('${NOTIFY.eventsCommitted}', '')`);
      });
      const at = now();
      for (const id of ids) ingest.set(id, at);
    };
    const waitDelivered = async (count: number) => {
      while ((await ask<{ count: number }>('count')).count < count) await sleep(20);
    };

    await commitEvents(200); // warm-up: JIT, pools, workflow cache
    await waitDelivered(200);
    ingest.clear();

    // (b) Full speed: batches of 100 events (ingress's group commit at high load).
    process.stderr.write(`delivery bench: end to end, ${opts.events} events at full speed\n`);
    const eagerBefore = await eagerStarts();
    const sample = startCpuSampler(processLabels);
    const threads = startThreadSampler();
    const e2eStart = now();
    for (let sent = 0; sent < opts.events; sent += 100) await commitEvents(Math.min(100, opts.events - sent));
    await waitDelivered(200 + opts.events);
    const cpu = sample();
    const relayThreads = threads(opts.events);
    const eagerAfter = await eagerStarts();
    const eager = { eager: eagerAfter.eager - eagerBefore.eager, fallback: eagerAfter.fallback - eagerBefore.fallback };
    const { arrivals: fullArrivals } = await ask<{ arrivals: Record<string, number> }>('dump');
    const lastArrival = Math.max(...[...ingest.keys()].map((id) => fullArrivals[id] ?? 0));
    const e2eRate = opts.events / ((lastArrival - e2eStart) / 1000);
    const fullSpeed = latencyStats(ingest, fullArrivals);
    ingest.clear();
    // Let completions settle before the paced run.
    await sleep(2000);
    const { rows: lastDelivery } = await knex.raw(`select id from deliveries where destination_id = ? and status = 'success' order by id desc limit 1`, [destination]);
    const cost = await deliveryCost(container.temporal, lastDelivery[0].id);

    // (c) Paced at half the sustained rate, one event per transaction.
    const pacedRate = Math.max(1, Math.floor(e2eRate / 2));
    const pacedCount = Math.round(pacedRate * opts.pacedSeconds);
    process.stderr.write(`delivery bench: paced, ${pacedRate} events/s for ${opts.pacedSeconds} s\n`);
    const pacedStart = now();
    const inserts: Promise<void>[] = [];
    for (let i = 0; i < pacedCount; i++) {
      const due = pacedStart + (i * 1000) / pacedRate;
      const wait = due - now();
      if (wait > 1) await sleep(wait);
      inserts.push(commitEvents(1));
    }
    await Promise.all(inserts);
    await waitDelivered(200 + opts.events + pacedCount);
    const { arrivals: pacedArrivals } = await ask<{ arrivals: Record<string, number> }>('dump');
    const paced = latencyStats(ingest, pacedArrivals);

    return {
      ceiling_empty_workflows_per_second: ceiling.per_second,
      // The SDK's own floor: this process's CPU per empty workflow (started over gRPC, one workflow task, no activity), by thread group.
      sdk_floor_cpu_ms_per_empty_workflow: ceiling.process_cpu_ms_per_workflow,
      end_to_end: {
        deliveries_per_second: Math.round(e2eRate),
        ingest_to_first_attempt_ms: fullSpeed,
        cpu,
        // The relay's own CPU (this process: worker + dispatcher) per delivery, from the sampler.
        relay_cpu_ms_per_delivery: Math.round((((cpu.percent_of_one_core[BENCH_PROCESS] ?? 0) / 100) * cpu.seconds * 1000 * 10) / opts.events) / 10,
        // The same, by thread group (docs/internals/benchmark-methods.md "Delivery").
        relay_cpu_ms_per_delivery_by_thread: relayThreads,
        // Starts that asked for eager start and got it (the SDK silently falls back when no workflow-task slot is free).
        eager_starts: { ...eager, share: eager.eager + eager.fallback > 0 ? Math.round((eager.eager / (eager.eager + eager.fallback)) * 1000) / 1000 : null },
      },
      ratio_to_ceiling: Math.round((e2eRate / ceiling.per_second) * 100) / 100,
      paced_half_rate: { events_per_second: pacedRate, events: pacedCount, ingest_to_first_attempt_ms: paced },
      cost_of_one_delivery: cost,
    };
  } finally {
    await runStops(stops, (err) => log.warn({ err }, 'bench cleanup step failed'));
  }
}

export async function main(args: string[]): Promise<void> {
  const opts: Opts = {
    events: arg(args, 'events', 3000),
    ceilingEvents: arg(args, 'ceiling-events', 1000),
    concurrency: arg(args, 'concurrency', 64),
    pacedSeconds: arg(args, 'paced-seconds', 10),
    // Eager workflow start, as `relay worker` does; `--no-eager` measures the plain start.
    eager: !args.includes('--no-eager'),
  };
  // dev: the dev server with its defaults and tuned; server: the real Temporal server on PostgreSQL; all: both.
  const temporalTargets = stringArg(args, 'temporal') ?? process.env.RELAY_BENCH_TEMPORAL ?? 'all';
  if (!['dev', 'server', 'all'].includes(temporalTargets)) throw new Error(`--temporal: "${temporalTargets}" is not dev, server or all`);
  // The headline: `npm start` (bench/user-path.ts), its deliveries and paced latency; `--no-user-path` leaves it out.
  const userPath = args.includes('--no-user-path')
    ? undefined
    : await runUserPath({ ...USER_PATH_DEFAULTS, repo: REPO, phases: ['delivery', 'paced'], events: opts.events }, (line) => process.stderr.write(`${line}\n`));
  const stops: Stops = [];
  const log = createLogger('warn');
  const loadAtStart = Number(os.loadavg()[0].toFixed(1));
  try {
    let databaseUrl = process.env.DATABASE_URL;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-bench-delivery-'));
    fs.chmodSync(dataDir, 0o755);
    stops.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    if (!databaseUrl) {
      const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), port: await freePort() });
      stops.push(() => pg.stop());
      databaseUrl = pg.url;
    }
    const orm = await createOrm(databaseUrl);
    await migrate(orm);
    await orm.close();
    stops.push(() => closeHttpAgents());

    // (1) The dev server's knobs, one ceiling each.
    const knobs: Array<{ name: string; flags: readonly string[]; store: string; ceiling_empty_workflows_per_second: number; cpu: CpuProfile }> = [];
    if (temporalTargets !== 'server' && !process.env.TEMPORAL_ADDRESS && !args.includes('--no-knobs')) {
      for (const knob of DEV_KNOBS) {
        process.stderr.write(`delivery bench: dev server ceiling, ${knob.name}\n`);
        const target = await startDev(knob.tuning, knob.store, dataDir);
        try {
          const ceiling = await measureCeiling(target.address, opts);
          knobs.push({ name: knob.name, flags: knob.tuning, store: knob.store, ceiling_empty_workflows_per_second: ceiling.per_second, cpu: ceiling.cpu });
        } finally {
          await target.stop();
        }
      }
    }

    // (2) End to end on each target.
    const plan: Array<{ name: string; start: () => Promise<TemporalTarget> }> = [];
    if (process.env.TEMPORAL_ADDRESS) {
      plan.push({ name: `TEMPORAL_ADDRESS (${process.env.TEMPORAL_ADDRESS})`, start: async () => ({ address: process.env.TEMPORAL_ADDRESS!, stop: async () => {} }) });
    } else {
      if (temporalTargets !== 'server') {
        plan.push({ name: 'dev server, defaults', start: () => startDev([], 'tmpfs', dataDir) });
        plan.push({ name: 'dev server, DEV_SERVER_TUNING (as `npm start` runs it)', start: () => startDev(DEV_SERVER_TUNING, 'tmpfs', dataDir) });
      }
      const serverMissing = temporalTargets === 'all' ? realServerMissing() : undefined;
      if (serverMissing) process.stderr.write(`delivery bench: the real Temporal server is skipped: ${serverMissing}\n`);
      if (temporalTargets !== 'dev' && !serverMissing) {
        plan.push({ name: 'real Temporal server on PostgreSQL', start: () => startRealServer(databaseUrl!, dataDir, log) });
      }
    }
    const targets: Array<{ name: string } & Awaited<ReturnType<typeof measureEndToEnd>>> = [];
    for (const step of plan) {
      process.stderr.write(`delivery bench: ${step.name}\n`);
      const target = await step.start();
      try {
        targets.push({ name: step.name, ...(await measureEndToEnd(databaseUrl, target.address, opts, log)) });
      } finally {
        await target.stop();
      }
    }

    const best = targets[targets.length - 1];
    const figures = {
      date: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        model: os.cpus()[0]?.model,
        node: process.version,
        load_average_1m_at_start: loadAtStart,
        load_average_1m_at_end: Number(os.loadavg()[0].toFixed(1)),
      },
      options: opts,
      user_path: userPath,
      dev_server_knobs: knobs,
      targets,
      targets_set: { deliveries_per_second_at_least: 300, paced_p99_below_ms: 150 },
      met: best ? { deliveries_per_second: best.end_to_end.deliveries_per_second >= 300, paced_p99: best.paced_half_rate.ingest_to_first_attempt_ms.p99_ms < 150 } : {},
    };
    saveFigures(RESULTS, figures);
    writeDocSection(figures);
  } finally {
    await runStops(stops, (err) => log.warn({ err }, 'bench cleanup step failed'));
  }
}

const sumMs = (byThread: Record<string, number>) => Math.round(Object.values(byThread).reduce((a, b) => a + b, 0) * 10) / 10;
const threadLine = (byThread: Record<string, number>) =>
  `${Object.entries(byThread).sort(([, a], [, b]) => b - a).map(([group, ms]) => `${group} ${ms}`).join(', ')}; total ${sumMs(byThread)}`;

const cpuLine = (cpu: CpuProfile) =>
  `${Object.entries(cpu.percent_of_one_core).map(([name, pct]) => `${name} ${pct} %`).join(', ')}; whole machine ${cpu.machine_busy_percent} % busy`;

function writeDocSection(f: {
  date: string;
  machine: { cpus: number; node: string; load_average_1m_at_start: number; load_average_1m_at_end: number };
  options: Opts;
  user_path?: UserPathFigures;
  dev_server_knobs: Array<{ name: string; store: string; ceiling_empty_workflows_per_second: number; cpu: CpuProfile }>;
  targets: Array<{ name: string } & Awaited<ReturnType<typeof measureEndToEnd>>>;
}): void {
  const section = [
    '## Delivery (`npm run bench:delivery`)',
    '',
    `One run on ${f.date.slice(0, 16).replace('T', ' ')} UTC, ${f.machine.cpus} cores, Node ${f.machine.node}; 1-minute load average ${f.machine.load_average_1m_at_start} at the start and ${f.machine.load_average_1m_at_end} at the end (other engineers' test runs share the machine, so absolute figures are depressed: compare rows within the run). PostgreSQL, Temporal, the relay worker + outbox dispatcher (the bench process) and the receiver (a child process) share the machine.`,
    '',
    ...userPathLines(f.user_path),
    ...(f.dev_server_knobs.length
      ? [
          `### Dev server knobs (\`temporal server start-dev\`): ${f.options.ceilingEvents} empty workflows per row, ${f.options.concurrency} concurrent starts`,
          '',
          '| knobs | SQLite file | ceiling (empty workflows/s) | temporal CPU (% of one core) |',
          '|---|---|---|---|',
          ...f.dev_server_knobs.map(
            (k) => `| ${k.name} | ${k.store} | ${k.ceiling_empty_workflows_per_second} | ${Object.entries(k.cpu.percent_of_one_core).find(([n]) => n.startsWith('temporal'))?.[1] ?? '?'} |`,
          ),
          '',
        ]
      : []),
    `### Component: end to end in the bench process, ${f.options.events} events per target, ${f.options.concurrency} concurrent workflow starts (${f.options.eager ? 'eager start for deliveries, as `relay worker` does' : 'plain start'})`,
    '',
    'Events committed as ingress commits them → outbox dispatcher → one workflow per delivery → one local activity (route, transform, render, send, record) → signed POST to the receiver.',
    '',
    `| measure | ${f.targets.map((t) => t.name).join(' | ')} |`,
    `|---|${f.targets.map(() => '---').join('|')}|`,
    `| ceiling: empty workflows started + completed per second | ${f.targets.map((t) => t.ceiling_empty_workflows_per_second).join(' | ')} |`,
    `| end to end: deliveries per second (first attempt received; target ≥ 300) | ${f.targets.map((t) => `**${t.end_to_end.deliveries_per_second}**`).join(' | ')} |`,
    `| ratio to the ceiling (target ≥ 0.9) | ${f.targets.map((t) => t.ratio_to_ceiling).join(' | ')} |`,
    `| eager starts: share (eager / fallback) (target ≥ 99 %) | ${f.targets.map((t) => `${t.end_to_end.eager_starts.share === null ? '—' : `${Math.round(t.end_to_end.eager_starts.share * 1000) / 10} %`} (${t.end_to_end.eager_starts.eager} / ${t.end_to_end.eager_starts.fallback})`).join(' | ')} |`,
    `| the relay's CPU per delivery (worker + dispatcher; target ≤ 5 ms) | ${f.targets.map((t) => `${t.end_to_end.relay_cpu_ms_per_delivery} ms`).join(' | ')} |`,
    `| the SDK's floor: this process's CPU per empty workflow (ceiling run) | ${f.targets.map((t) => `${sumMs(t.sdk_floor_cpu_ms_per_empty_workflow)} ms`).join(' | ')} |`,
    `| paced at half rate: events/s | ${f.targets.map((t) => t.paced_half_rate.events_per_second).join(' | ')} |`,
    `| paced: ingest → first attempt p50 / p99 (target p99 < 150 ms) | ${f.targets.map((t) => `${t.paced_half_rate.ingest_to_first_attempt_ms.p50_ms} / **${t.paced_half_rate.ingest_to_first_attempt_ms.p99_ms}** ms`).join(' | ')} |`,
    `| one delivery: history events / workflow tasks / visibility writes | ${f.targets.map((t) => `${t.cost_of_one_delivery.history_events} / ${t.cost_of_one_delivery.workflow_tasks} / ${t.cost_of_one_delivery.visibility_writes}`).join(' | ')} |`,
    '',
    'CPU during the full-speed run, percent of one core per process tree:',
    '',
    ...f.targets.map((t) => `- ${t.name}: ${cpuLine(t.end_to_end.cpu)}.`),
    '',
    "The relay's CPU per delivery by thread group (ms; /proc, not a profile), and the same for one empty workflow in the ceiling run:",
    '',
    ...f.targets.flatMap((t) => [
      `- ${t.name}, per delivery: ${threadLine(t.end_to_end.relay_cpu_ms_per_delivery_by_thread)}.`,
      `- ${t.name}, per empty workflow: ${threadLine(t.sdk_floor_cpu_ms_per_empty_workflow)}.`,
    ]),
    '',
    `History of one delivery (${f.targets[0]?.name ?? ''}): ${f.targets[0]?.cost_of_one_delivery.event_types.join(', ') ?? ''}.`,
    '',
    'What bounds these figures: docs/internals/benchmark-methods.md ("Delivery").',
  ].join('\n');
  writeBenchSection('delivery', section);
}

/** The headline rows: `npm start` as a user runs it, deliveries and paced latency beside the same run's ceiling. */
function userPathLines(u: UserPathFigures | undefined): string[] {
  if (!u?.delivery || !u.paced) return [];
  const d = u.delivery;
  return [
    `### As users run it: \`npm start\` (the same as \`npm run bench:user\`)`,
    '',
    `${d.events} signed events sent to a source ${USER_PATH_DEFAULTS.sendConcurrency} at a time through ingress, fanned out with their search rows, one workflow each, POSTed signed to the receiver; then ${u.paced.events_per_second} events/s for ${USER_PATH_DEFAULTS.pacedSeconds} s. The dev server is the one \`relay start\` runs (on-disk SQLite file, the launcher's settings); its ceiling was measured in the same run. Load average ${u.load_average_1m.start} → ${u.load_average_1m.end}.`,
    '',
    '| measure | `npm start` |',
    '|---|---|',
    `| deliveries/s at the receiver | **${d.deliveries_per_second}** |`,
    `| the same dev server's empty-workflow ceiling; ratio (target ≥ 0.9) | ${u.references.ceiling_empty_workflows_per_second}; **${d.ratio_to_ceiling}** |`,
    `| CPU ms per delivery: relay process / Temporal / PostgreSQL | ${d.cpu.ms_per_unit.relay} / ${d.cpu.ms_per_unit.temporal} / ${d.cpu.ms_per_unit.postgres} |`,
    `| Temporal's CPU per empty workflow in the ceiling run | ${u.references.ceiling_temporal_cpu_ms_per_workflow} ms |`,
    `| paced ${u.paced.events_per_second}/s: send → receive p50 / p99 (target p99 < 50 ms) | ${u.paced.send_to_receive_ms.p50} / **${u.paced.send_to_receive_ms.p99}** ms |`,
    '',
  ];
}
