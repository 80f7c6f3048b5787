import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Client as PgClient } from 'pg';
import { uuidv7 } from '../src/common/ids';
import { SecretBox } from '../src/common/secret-box';
import { createOrm, migrate } from '../src/db/orm';
import { pgClientConfig } from '../src/db/pg-connection';
import { startBenchPostgres } from './bench-database';
import { stopChild } from '../src/launcher/child-process';
import { findTemporalCli, startTemporalDevServer, waitForPort } from '../src/launcher/temporal';
import { findTemporalServer, startTemporalServer } from '../src/launcher/temporal-server';
import { freePort } from '../test/support/free-port';
import { hmacHex } from '../test/support/ingress-helpers';
import { runStops, saveFigures, writeBenchSection } from './bench-output';

/**
 * `npm run bench:scaling [-- --events 2000 --workers 1,2 --targets dev,server --shards 4] [--cpus 1,2]`
 *
 * With `--cpus 1,2`: the whole run once per count, every process of the stack (PostgreSQL, Temporal,
 * the relay processes, the receiver) pinned to that many cores with `taskset` (children inherit the
 * affinity): how delivery scales with cores. Its figures go to bench/results/scaling-cpus.json and the
 * `scaling-cpus` section of docs/benchmarks.md.
 *
 * The production shape on one machine, for each Temporal target (the dev server as
 * the launcher starts it; a real `temporal-server` on PostgreSQL with N history shards):
 * one `relay api` process takes signed webhooks over HTTP and M `relay worker` processes
 * (outbox dispatcher + Temporal worker each) deliver them to a receiver process:
 * deliveries/s for each M. The empty-workflow ceiling of each target is
 * `npm run bench:delivery -- --temporal all`'s. Writes bench/results/scaling.json and the
 * marked section of docs/benchmarks.md. 127.0.0.1 only, bounded in count.
 */
const REPO = path.resolve(__dirname, '..');
const RESULTS = path.join(REPO, 'bench', 'results', 'scaling.json');
const RELAY = path.join(REPO, 'bin', 'relay.js');

/** Counts distinct event ids received (any `X-*-Event-ID` header) and when the last new one arrived. */
const RECEIVER = `
const http = require('node:http');
let seen = new Set(), last = 0;
http.createServer((req, res) => {
  const key = Object.keys(req.headers).find((h) => h.endsWith('-event-id'));
  const id = key && req.headers[key];
  if (id && !seen.has(id)) { seen.add(id); last = performance.timeOrigin + performance.now(); }
  req.resume();
  req.on('end', () => { res.writeHead(200); res.end('ok'); });
}).listen(0, '127.0.0.1', function () { process.send({ port: this.address().port }); });
process.on('message', (m) => {
  if (m === 'reset') { seen = new Set(); last = 0; }
  process.send({ count: seen.size, last });
});
`;

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function option(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
}

type Target = 'dev' | 'server';

interface RunFigures {
  workers: number;
  deliveries_per_second: number;
  seconds: number;
}

function spawnRelay(command: 'api' | 'worker', env: Record<string, string>): ChildProcess & { stopRelay(): Promise<void> } {
  const child = spawn(process.execPath, [RELAY, command], { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
  return Object.assign(child, { stopRelay: () => stopChild(child) });
}

/** Resolves once `count` worker processes poll the task queue. */
async function waitForPollers(address: string, taskQueue: string, count: number): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    for (let i = 0; i < 600; i++) {
      const { pollers } = await connection.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: taskQueue },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      });
      if (new Set((pollers ?? []).map((p) => p.identity)).size >= count) return;
      await sleep(200);
    }
    throw new Error(`${count} worker process(es) did not poll ${taskQueue} within 120 s`);
  } finally {
    await connection.close();
  }
}

/** `--cpus 1,2`: runs this bench once per core count under `taskset`, each writing its figures to `--out`. */
async function mainPinned(args: string[], counts: number[]): Promise<void> {
  const rest = args.filter((a, i) => a !== '--cpus' && args[i - 1] !== '--cpus');
  const rows: Array<{ cpus: number; results: Record<string, { temporal: string; end_to_end: RunFigures[] }> }> = [];
  for (const n of counts) {
    if (!Number.isInteger(n) || n < 1 || n > os.cpus().length) throw new Error(`--cpus: ${n} is not a core count of this machine (1 to ${os.cpus().length})`);
    const out = path.join(os.tmpdir(), `relay-scaling-cpus-${n}-${process.pid}.json`);
    process.stderr.write(`scaling bench: pinned to ${n} core(s)\n`);
    const child = spawn('taskset', ['-c', n === 1 ? '0' : `0-${n - 1}`, process.execPath, RELAY, 'bench', 'scaling', ...rest, '--out', out], { stdio: ['ignore', 'ignore', 'inherit'] });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`scaling bench pinned to ${n} core(s) exited with ${code}`);
    rows.push({ cpus: n, results: JSON.parse(fs.readFileSync(out, 'utf8')).results });
    fs.rmSync(out, { force: true });
  }
  const figures = { date: new Date().toISOString(), machine: { cpus: os.cpus().length, node: process.version, load_average_1m_at_end: Number(os.loadavg()[0].toFixed(1)) }, rows };
  saveFigures(path.join(REPO, 'bench', 'results', 'scaling-cpus.json'), figures);
  const table = rows.flatMap((r) =>
    Object.values(r.results).flatMap((t) => t.end_to_end.map((run) => `| ${r.cpus} | ${t.temporal} | ${run.workers} | ${run.deliveries_per_second} |`)),
  );
  writeBenchSection(
    'scaling-cpus',
    [
      `Measured by \`npm run bench:scaling -- --cpus ${counts.join(',')}\` on ${figures.date.slice(0, 16).replace('T', ' ')} UTC (1-minute load ${figures.machine.load_average_1m_at_end} at the end): the whole stack pinned with \`taskset\` to the first N cores.`,
      '',
      '| cores | Temporal | `relay worker` processes | deliveries/s end to end |',
      '|---|---|---|---|',
      ...table,
    ].join('\n'),
    'Scaling with cores (`npm run bench:scaling -- --cpus 1,2`)',
  );
}

export async function main(args: string[]): Promise<void> {
  const cpus = option(args, 'cpus', '');
  if (cpus) return mainPinned(args, cpus.split(',').map(Number));
  const out = option(args, 'out', '');
  const opts = {
    events: Number(option(args, 'events', '2000')),
    workers: option(args, 'workers', '1,2').split(',').map(Number),
    targets: option(args, 'targets', 'dev,server').split(',') as Target[],
    shards: Number(option(args, 'shards', '4')),
    concurrency: 64,
  };
  for (const t of opts.targets) if (!['dev', 'server'].includes(t)) throw new Error(`--targets: unknown target "${t}" (dev, server)`);
  const stops: Array<() => Promise<unknown> | unknown> = [];
  try {
    // Both Temporal stores on tmpfs when there is one (the dev server's SQLite file, the real server's PostgreSQL),
    // so the figures compare CPU cost rather than this disk's fsync latency.
    const { dataDir: root, url: databaseUrl } = await startBenchPostgres('scaling', stops, fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir());
    const orm = await createOrm(databaseUrl);
    await migrate(orm);
    await orm.close();

    const keys = `bench:${randomBytes(32).toString('base64')}`;
    const box = new SecretBox([{ id: 'bench', key: Buffer.from(keys.split(':')[1], 'base64') }]);
    const relayEnv = { NODE_ENV: 'development', LOG_LEVEL: 'warn', DATABASE_URL: databaseUrl, RELAY_ENCRYPTION_KEYS: keys, RELAY_JWT_SECRET: randomBytes(32).toString('hex') };

    const receiver = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    stops.push(() => receiver.kill());
    const ask = <T>(msg?: string) =>
      new Promise<T>((resolve) => {
        receiver.once('message', (m) => resolve(m as T));
        if (msg) receiver.send(msg);
      });
    const { port: receiverPort } = await ask<{ port: number }>();

    const db = new PgClient(pgClientConfig(databaseUrl));
    await db.connect();
    stops.push(() => db.end());
    const [org, user, project] = [uuidv7(), uuidv7(), uuidv7()];
    await db.query('insert into organizations (id, name, plan) values ($1, $2, $3)', [org, 'Bench', 'growth']);
    await db.query('insert into users (id, email) values ($1, $2)', [user, `bench-${user}@example.test`]);
    await db.query('insert into projects (id, organization_id, user_id, name, slug) values ($1, $2, $3, $4, $5)', [project, org, user, 'Bench', 'bench']);
    /** A fresh endpoint → destination (the receiver) per run, so runs never share an outbox row. */
    const newRoute = async () => {
      const [endpoint, destination] = [uuidv7(), uuidv7()];
      const slug = `bench-${randomBytes(4).toString('hex')}`;
      const secret = `whsec_${randomBytes(24).toString('hex')}`;
      await db.query('insert into webhook_endpoints (id, project_id, name, slug, signing_secret_enc) values ($1, $2, $3, $4, $5)', [endpoint, project, 'Bench', slug, box.seal(secret)]);
      await db.query('insert into destinations (id, project_id, name, type, webhook_url_enc, signing_secret_enc) values ($1, $2, $3, $4, $5, $6)', [
        destination, project, 'Receiver', 'webhook', box.seal(`http://127.0.0.1:${receiverPort}/hook`), box.seal('bench-destination-secret'),
      ]);
      await db.query('insert into endpoint_destinations (id, endpoint_id, destination_id) values ($1, $2, $3)', [uuidv7(), endpoint, destination]);
      return { slug, secret };
    };
    const payload = JSON.stringify({ type: 'order.created', data: { id: 'ord_1', amount: 4200, note: 'x'.repeat(400) } });
    /** POSTs `n` signed webhooks to `relay api`, 64 at a time; every one must be accepted. */
    const ingest = async (apiUrl: string, route: { slug: string; secret: string }, n: number) => {
      const headers = { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${hmacHex(route.secret, payload)}` };
      let next = 0;
      await Promise.all(
        Array.from({ length: opts.concurrency }, async () => {
          for (; next < n; ) {
            next += 1;
            const res = await fetch(`${apiUrl}/hooks/${route.slug}`, { method: 'POST', headers, body: payload });
            if (res.status !== 202 && res.status !== 200) throw new Error(`ingress answered ${res.status}: ${await res.text()}`);
            await res.arrayBuffer();
          }
        }),
      );
    };
    const waitReceived = async (count: number) => {
      for (let last = { count: -1, at: now() }; ; await sleep(50)) {
        const got = await ask<{ count: number; last: number }>('count');
        if (got.count >= count) return got.last;
        if (got.count !== last.count) last = { count: got.count, at: now() };
        else if (now() - last.at > 120_000) throw new Error(`deliveries stalled at ${got.count}/${count} for 120 s`);
      }
    };

    const results: Record<string, { temporal: string; end_to_end: RunFigures[] }> = {};
    for (const target of opts.targets) {
      const temporalPort = await freePort();
      const server =
        target === 'dev'
          ? await startTemporalDevServer({
              cliPath: findTemporalCli(process.env.TEMPORAL_CLI_PATH),
              dbFile: path.join(root, 'temporal-dev.db'),
              port: temporalPort,
              uiPort: await freePort(),
              namespace: 'default',
            })
          : await startTemporalServer({
              binaries: findTemporalServer(process.env.TEMPORAL_SERVER_PATH),
              postgresUrl: databaseUrl,
              dir: path.join(root, 'temporal-server'),
              port: temporalPort,
              namespace: 'default',
              historyShards: opts.shards,
            });
      const label = target === 'dev' ? 'temporal server start-dev (SQLite on tmpfs)' : `temporal-server on PostgreSQL (tmpfs), ${opts.shards} history shards, all services in one process`;

      const apiPort = await freePort();
      const api = spawnRelay('api', { ...relayEnv, HOST: '127.0.0.1', PORT: String(apiPort), TEMPORAL_ADDRESS: server.url });
      const runs: RunFigures[] = [];
      try {
        const base = `http://127.0.0.1:${apiPort}`;
        await waitForPort(apiPort, 60_000, api);
        for (const m of opts.workers) {
          const taskQueue = `bench-scaling-${randomBytes(3).toString('hex')}`;
          const workers = Array.from({ length: m }, () => spawnRelay('worker', { ...relayEnv, TEMPORAL_ADDRESS: server.url, TEMPORAL_TASK_QUEUE: taskQueue }));
          try {
            await waitForPollers(server.url, taskQueue, m);
            const route = await newRoute();
            await ask('reset');
            await ingest(base, route, 200); // warm-up: JIT, pools, workflow caches
            await waitReceived(200);
            await ask('reset');
            process.stderr.write(`scaling bench: ${target}, ${m} worker process(es): ${opts.events} webhooks through relay api\n`);
            const t0 = now();
            await ingest(base, route, opts.events);
            const last = await waitReceived(opts.events);
            const seconds = (last - t0) / 1000;
            runs.push({ workers: m, deliveries_per_second: Math.round(opts.events / seconds), seconds: Math.round(seconds * 10) / 10 });
          } finally {
            await Promise.all(workers.map((w) => w.stopRelay()));
          }
        }
      } finally {
        await api.stopRelay();
        await server.stop();
      }
      results[target] = { temporal: label, end_to_end: runs };
    }

    const figures = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, load_average_1m_at_end: Number(os.loadavg()[0].toFixed(1)) },
      options: opts,
      results,
    };
    if (out) {
      fs.writeFileSync(out, JSON.stringify(figures));
      return;
    }
    saveFigures(RESULTS, figures);
    writeDocSection(figures);
  } finally {
    await runStops(stops, (err) => process.stderr.write(`scaling bench: cleanup step failed: ${String(err)}\n`));
  }
}

function writeDocSection(f: {
  date: string;
  machine: { cpus: number; node: string; load_average_1m_at_end: number };
  options: { events: number };
  results: Record<string, { temporal: string; end_to_end: RunFigures[] }>;
}): void {
  const rows = Object.values(f.results).flatMap((r) =>
    r.end_to_end.map((run) => `| ${r.temporal} | 1 \`relay api\` + ${run.workers} \`relay worker\` process${run.workers > 1 ? 'es' : ''} | ${run.deliveries_per_second} |`),
  );
  const section = [
    `Measured by \`npm run bench:scaling\` on ${f.date.slice(0, 16).replace('T', ' ')} UTC: ${f.machine.cpus} cores shared with other engineers' test runs (1-minute load ${f.machine.load_average_1m_at_end} at the end), Node ${f.machine.node}; ${f.options.events} webhooks per run; PostgreSQL, Temporal, every relay process and the receiver on the same machine.`,
    '',
    '| Temporal | relay processes | deliveries/s end to end |',
    '|---|---|---|',
    ...rows,
  ].join('\n');
  writeBenchSection('scaling', section, 'Scaling (`npm run bench:scaling`)');
}
