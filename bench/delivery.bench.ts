import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createContainer } from '../src/app/container';
import { uuidv7 } from '../src/common/ids';
import { createLogger } from '../src/common/logger';
import { NOTIFY } from '../src/common/notify-channels';
import { loadConfig } from '../src/config/config';
import { DeliveryDispatcher } from '../src/deliveries/delivery-dispatcher';
import { createOrm, migrate } from '../src/db/orm';
import { startEmbeddedPostgres } from '../src/launcher/postgres';
import { findTemporalCli, startTemporalDevServer } from '../src/launcher/temporal';
import { closeHttpAgents } from '../src/sending/http-client';
import { ensureSearchAttributes } from '../src/temporal/ensure-search-attributes';
import { startRelayWorker } from '../src/worker/worker';

/**
 * `npm run bench:delivery [-- --events 2000 --concurrency 64 --paced-seconds 10]`
 *
 * In one run, against one Temporal server (a private dev server, or TEMPORAL_ADDRESS):
 * (a) the raw ceiling: empty workflows started (with the dispatcher's start
 *     concurrency) and completed per second by a worker in this process;
 * (b) end to end at full speed: events committed the way ingress commits them
 *     (multi-row INSERT + NOTIFY per transaction), fanned out by the outbox
 *     dispatcher, one delivery workflow each, first attempt POSTed to a local
 *     receiver (a child process): deliveries/s and ingest→first-attempt latency;
 * (c) the same path paced at half of (b)'s rate, one event per transaction:
 *     ingest→first-attempt p50/p99.
 * 127.0.0.1 only, bounded in count and time. Writes bench/results/delivery.json
 * and the `## Delivery` section of docs/benchmarks.md.
 */
const REPO = path.resolve(__dirname, '..');
const RESULTS = path.join(REPO, 'bench', 'results', 'delivery.json');
const DOC = path.join(REPO, 'docs', 'benchmarks.md');

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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().unref().on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10;
}

function latencyStats(ingest: Map<string, number>, arrivals: Record<string, number>) {
  const latencies = [...ingest].filter(([id]) => id in arrivals).map(([id, at]) => arrivals[id] - at).sort((a, b) => a - b);
  return { delivered: latencies.length, p50_ms: percentile(latencies, 50), p99_ms: percentile(latencies, 99), max_ms: percentile(latencies, 100) };
}

export async function main(args: string[]): Promise<void> {
  const opts = {
    events: arg(args, 'events', 2000),
    concurrency: arg(args, 'concurrency', 64),
    pacedSeconds: arg(args, 'paced-seconds', 10),
    // Eager workflow start, as `relay worker` does; `--no-eager` measures the plain start.
    eager: !args.includes('--no-eager'),
  };
  const stops: Array<() => Promise<unknown> | unknown> = [];
  const log = createLogger('warn');
  try {
    // PostgreSQL and Temporal of our own, unless given.
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
    let temporalAddress = process.env.TEMPORAL_ADDRESS;
    let temporalStore = 'TEMPORAL_ADDRESS';
    if (!temporalAddress) {
      // The dev server's SQLite file on tmpfs when there is one: the figures then show CPU cost, not this disk's fsync latency.
      const shm = fs.existsSync('/dev/shm') ? fs.mkdtempSync('/dev/shm/relay-bench-temporal-') : null;
      if (shm) stops.push(() => fs.rmSync(shm, { recursive: true, force: true }));
      temporalStore = shm ? 'SQLite file on tmpfs' : 'SQLite file';
      const temporal = await startTemporalDevServer({
        cliPath: findTemporalCli(process.env.TEMPORAL_CLI_PATH),
        dbFile: path.join(shm ?? dataDir, 'temporal.db'),
        port: await freePort(),
        uiPort: await freePort(),
        namespace: 'default',
      });
      stops.push(() => temporal.stop());
      temporalAddress = temporal.url;
    } else {
      await ensureSearchAttributes(temporalAddress, 'default');
    }

    const receiver = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    stops.push(() => receiver.kill());
    const ask = <T>(msg?: string) =>
      new Promise<T>((resolve) => {
        receiver.once('message', (m) => resolve(m as T));
        if (msg) receiver.send(msg);
      });
    const { port } = await ask<{ port: number }>();

    const config = loadConfig({
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_TASK_QUEUE: `bench-delivery-${randomBytes(3).toString('hex')}`,
      RELAY_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
      RELAY_JWT_SECRET: randomBytes(32).toString('hex'),
    });
    const container = await createContainer(config, log);
    stops.push(() => container.close());

    // The relay's worker first (it also sets the SDK's log level); it idles while the ceiling is measured.
    const worker = await startRelayWorker(container);
    stops.push(() => worker.stop(), () => closeHttpAgents());

    // (a) The ceiling: empty workflows, same server, same start concurrency, a worker tuned like the relay's.
    const ceilingQueue = `${config.TEMPORAL_TASK_QUEUE}-ceiling`;
    let completed = 0;
    let lastCompletion = 0;
    const connection = await NativeConnection.connect({ address: temporalAddress });
    const ceilingWorker = await Worker.create({
      connection,
      taskQueue: ceilingQueue,
      workflowsPath: require.resolve('./delivery-ceiling.workflow'),
      maxConcurrentWorkflowTaskExecutions: 100,
      maxCachedWorkflows: 2000,
      sinks: { bench: { done: { fn: () => void ((completed += 1), (lastCompletion = now())) } } },
    });
    const ceilingRun = ceilingWorker.run();
    const startEmpty = async (n: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: opts.concurrency }, async () => {
          while (next < n) {
            next += 1;
            await container.temporal.workflow.start('emptyWorkflow', { taskQueue: ceilingQueue, workflowId: `bench-empty-${uuidv7()}` });
          }
        }),
      );
    };
    await startEmpty(200); // warm-up
    while (completed < 200) await sleep(20);
    completed = 0;
    process.stderr.write(`delivery bench: ceiling, ${opts.events} empty workflows, ${opts.concurrency} concurrent starts\n`);
    const ceilingStart = now();
    await startEmpty(opts.events);
    while (completed < opts.events) await sleep(5);
    const ceilingRate = opts.events / ((lastCompletion - ceilingStart) / 1000);
    ceilingWorker.shutdown();
    await ceilingRun;
    await connection.close();

    // The relay's outbox dispatcher, beside its worker in this process (as `relay start` runs them).
    const dispatcher = new DeliveryDispatcher(container, { startConcurrency: opts.concurrency });
    if (opts.eager) dispatcher.useEagerStart(new Client({ connection: worker.worker.connection!, namespace: 'default' }));
    await dispatcher.start();
    stops.push(() => dispatcher.stop());

    const knex = container.orm.em.getConnection().getKnex();
    const [org, user, project, endpoint, destination] = [uuidv7(), uuidv7(), uuidv7(), uuidv7(), uuidv7()];
    await knex.raw('insert into organizations (id, name) values (?, ?)', [org, 'Bench']);
    await knex.raw('insert into users (id, email) values (?, ?)', [user, `bench-${user}@example.test`]);
    await knex.raw('insert into projects (id, organization_id, user_id, name, slug) values (?, ?, ?, ?, ?)', [project, org, user, 'Bench', 'bench']);
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
    const e2eStart = now();
    for (let sent = 0; sent < opts.events; sent += 100) await commitEvents(Math.min(100, opts.events - sent));
    await waitDelivered(200 + opts.events);
    const { arrivals: fullArrivals } = await ask<{ arrivals: Record<string, number> }>('dump');
    const lastArrival = Math.max(...[...ingest.keys()].map((id) => fullArrivals[id] ?? 0));
    const e2eRate = opts.events / ((lastArrival - e2eStart) / 1000);
    const fullSpeed = latencyStats(ingest, fullArrivals);
    ingest.clear();
    // Let retries, completions and the workflow cache settle before the paced run.
    await sleep(2000);

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

    const figures = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, load_average_1m_at_end: Number(os.loadavg()[0].toFixed(1)) },
      temporal: process.env.TEMPORAL_ADDRESS ? 'TEMPORAL_ADDRESS' : `temporal server start-dev (${temporalStore})`,
      options: opts,
      ceiling_empty_workflows_per_second: Math.round(ceilingRate),
      end_to_end: { deliveries_per_second: Math.round(e2eRate), ingest_to_first_attempt_ms: fullSpeed },
      ratio_to_ceiling: Math.round((e2eRate / ceilingRate) * 100) / 100,
      paced_half_rate: { events_per_second: pacedRate, events: pacedCount, ingest_to_first_attempt_ms: paced },
      targets: { ratio_at_least: 0.8, paced_p99_below_ms: 150 },
      met: { ratio: e2eRate / ceilingRate >= 0.8, paced_p99: paced.p99_ms < 150 },
    };
    fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
    fs.writeFileSync(RESULTS, JSON.stringify(figures, null, 2) + '\n');
    writeDocSection(figures);
    process.stdout.write(JSON.stringify(figures, null, 2) + '\n');
  } finally {
    for (const stop of stops.reverse()) {
      try {
        await stop();
      } catch (err) {
        log.warn({ err }, 'bench cleanup step failed');
      }
    }
  }
}

function writeDocSection(f: {
  date: string;
  machine: { cpus: number; node: string; load_average_1m_at_end: number };
  temporal: string;
  options: { events: number; concurrency: number; pacedSeconds: number; eager: boolean };
  ceiling_empty_workflows_per_second: number;
  end_to_end: { deliveries_per_second: number; ingest_to_first_attempt_ms: { p50_ms: number; p99_ms: number } };
  ratio_to_ceiling: number;
  paced_half_rate: { events_per_second: number; ingest_to_first_attempt_ms: { p50_ms: number; p99_ms: number } };
}): void {
  const section = [
    '<!-- delivery:start -->',
    '## Delivery (`npm run bench:delivery`)',
    '',
    `One run on ${f.date.slice(0, 16).replace('T', ' ')} UTC, ${f.machine.cpus} cores, Node ${f.machine.node}, Temporal: ${f.temporal}; PostgreSQL, Temporal, the relay worker + outbox dispatcher (this process) and the receiver (a child process) share the machine (1-minute load ${f.machine.load_average_1m_at_end} at the end).`,
    `${f.options.events} events per run, ${f.options.concurrency} concurrent workflow starts (${f.options.eager ? 'eager start for deliveries, as `relay worker` does; plain start for the empty workflows' : 'plain start for both'}); the delivery path is: events committed as ingress commits them → outbox dispatcher → one workflow per delivery → one local activity (route, transform, render, send, record) → signed POST to the receiver.`,
    '',
    '| measure | value |',
    '|---|---|',
    `| raw ceiling: empty workflows started + completed per second | ${f.ceiling_empty_workflows_per_second} |`,
    `| end to end: deliveries per second (first attempt received) | ${f.end_to_end.deliveries_per_second} |`,
    `| ratio to the ceiling (target ≥ 0.8) | **${f.ratio_to_ceiling}** |`,
    `| ingest → first attempt at full speed, p50 / p99 | ${f.end_to_end.ingest_to_first_attempt_ms.p50_ms} / ${f.end_to_end.ingest_to_first_attempt_ms.p99_ms} ms |`,
    `| paced at half that rate (${f.paced_half_rate.events_per_second} events/s, one per transaction): p50 / p99 (target p99 < 150 ms) | ${f.paced_half_rate.ingest_to_first_attempt_ms.p50_ms} / **${f.paced_half_rate.ingest_to_first_attempt_ms.p99_ms}** ms |`,
    '',
    'Design choices behind the figures: docs/delivery.md ("Performance").',
    '<!-- delivery:end -->',
  ].join('\n');
  const doc = fs.existsSync(DOC) ? fs.readFileSync(DOC, 'utf8') : '# Benchmarks\n';
  const marked = /<!-- delivery:start -->[\s\S]*<!-- delivery:end -->/;
  fs.writeFileSync(DOC, marked.test(doc) ? doc.replace(marked, section) : `${doc.trimEnd()}\n\n${section}\n`);
}
