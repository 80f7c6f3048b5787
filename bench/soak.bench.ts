import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { uuidv7 } from '../src/common/ids';
import { createOrm, migrate } from '../src/db/orm';
import { startBenchPostgres } from './bench-database';
import { freePort } from '../test/support/free-port';
import { benchRelayEnv, startBenchTemporal, startRelayProcesses } from './bench-stack';
import { writeBenchSection } from './bench-output';

/**
 * `npm run bench:soak [-- --minutes 60 --rate 20 --sample-seconds 60 --heap-snapshots DIR]`
 *
 * A bounded memory soak: the real `relay api` and `relay worker` processes
 * (each its own Node process), on a private PostgreSQL and Temporal dev
 * server, receive a steady stream of signed webhooks (`--rate` per second,
 * 127.0.0.1 only) and deliver each to a local receiver (a child process).
 * Every `--sample-seconds` the RSS of both processes is read from /proc and
 * their V8 heap in use from their /metrics, recorded with the counts
 * accepted and delivered. Stops after `--minutes`. Growth is judged over the
 * last two thirds of the run (the first third after the 1-minute warm-up is
 * left for caches and pools to reach their working size).
 * `--heap-snapshots DIR` starts both with `--heapsnapshot-signal=SIGUSR2`
 * and takes a snapshot of each after the warm-up and at the end, to compare
 * with `node scripts/heap-diff.mjs A B`. Writes bench/results/soak.json and
 * the `## Memory soak` section of docs/benchmarks.md.
 */
const REPO = path.resolve(__dirname, '..');
const RESULTS = path.join(REPO, 'bench', 'results', 'soak.json');

const RECEIVER = `
const http = require('node:http');
let count = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => { count++; res.writeHead(200, { 'content-type': 'text/plain' }); res.end('ok'); });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', () => process.send({ count }));
`;

interface Options {
  minutes: number;
  rate: number;
  sampleSeconds: number;
  heapSnapshots?: string;
}

interface Sample {
  elapsed_s: number;
  api_rss_mib: number;
  worker_rss_mib: number;
  api_heap_mib: number;
  worker_heap_mib: number;
  /** Memory outside the V8 heap that V8 knows of (Buffers, ArrayBuffers): RSS can grow there while the heap stays flat. */
  api_external_mib: number;
  worker_external_mib: number;
  accepted: number;
  delivered: number;
  load_1m: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

function parseArgs(args: string[]): Options {
  const get = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const opts = {
    minutes: Number(get('minutes') ?? 60),
    rate: Number(get('rate') ?? 20),
    sampleSeconds: Number(get('sample-seconds') ?? 60),
    heapSnapshots: get('heap-snapshots'),
  };
  if (!(opts.minutes > 0 && opts.minutes <= 240)) throw new Error('--minutes must be between 0 and 240');
  if (!(opts.rate > 0 && opts.rate <= 2000)) throw new Error('--rate must be between 1 and 2000');
  if (!(opts.sampleSeconds >= 1)) throw new Error('--sample-seconds must be at least 1');
  return opts;
}


/** Resident set size of a process, from /proc (Linux). */
function rssBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return kb ? Number(kb[1]) * 1024 : NaN;
}

/** V8 heap in use and external memory of a relay process, from its Prometheus /metrics (prom-client's default metrics). */
async function heapBytes(metricsUrl: string): Promise<{ heap: number; external: number }> {
  const text = await fetch(metricsUrl).then((r) => r.text(), () => '');
  const read = (name: string) => Number(new RegExp(`^relay_nodejs_${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { heap: read('heap_size_used_bytes'), external: read('external_memory_bytes') };
}

/**
 * Waits until a heap snapshot requested from `pid` with SIGUSR2 is on disk: V8
 * writes the file in one go once it is serialized, which took over a minute for
 * a 300 MiB process on this loaded machine (the process answers nothing meanwhile).
 */
async function snapshotWritten(dir: string, pid: number, before: Set<string>): Promise<string> {
  for (let waited = 0; waited < 600_000; waited += 1000) {
    const file = fs.readdirSync(dir).find((f) => !before.has(f) && f.includes(`.${pid}.`) && f.endsWith('.heapsnapshot'));
    if (file) {
      const size = fs.statSync(path.join(dir, file)).size;
      await sleep(1000);
      if (size > 0 && fs.statSync(path.join(dir, file)).size === size) return path.join(dir, file);
    } else await sleep(1000);
  }
  throw new Error(`no heap snapshot from process ${pid} within 10 minutes`);
}

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / sxx;
}

type Measure = 'api_rss_mib' | 'worker_rss_mib' | 'api_heap_mib' | 'worker_heap_mib';

/**
 * Growth of one measure over the judged window (the samples from one third of the
 * run to its end): the fitted line's rise across the window, in MiB and as a share
 * of its value at the window's start. A fitted line, not last minus first: RSS and
 * heap move by several MiB between garbage collections, and one sample is noise.
 */
function growth(samples: Sample[], key: Measure): { window_start: number; window_end: number; growth_mib: number; growth_pct: number; mib_per_min: number } {
  const points = samples.filter((s) => Number.isFinite(s[key])).map((s) => [s.elapsed_s / 60, s[key]] as [number, number]);
  const minutes = points[points.length - 1][0] - points[0][0];
  const perMin = slope(points);
  const mean = points.reduce((a, [, y]) => a + y, 0) / points.length;
  const meanX = points.reduce((a, [x]) => a + x, 0) / points.length;
  const start = mean - perMin * (meanX - points[0][0]);
  const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;
  return { window_start: round(start), window_end: round(start + perMin * minutes), growth_mib: round(perMin * minutes), growth_pct: round((perMin * minutes * 100) / start, 2), mib_per_min: round(perMin, 3) };
}

export async function main(args: string[]): Promise<void> {
  const opts = parseArgs(args);
  const stops: Array<() => Promise<unknown> | unknown> = [];
  try {
    const { dataDir, url: databaseUrl } = await startBenchPostgres('soak', stops);
    const orm = await createOrm(databaseUrl);
    await migrate(orm);
    const knex = orm.em.getConnection().getKnex();
    stops.push(() => orm.close());
    const temporal = await startBenchTemporal('soak', stops, dataDir);

    const receiver = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    stops.push(() => receiver.kill());
    const ask = <T>(send: boolean) =>
      new Promise<T>((resolve) => {
        receiver.once('message', (m) => resolve(m as T));
        if (send) receiver.send('count');
      });
    const { port: receiverPort } = await ask<{ port: number }>(false);

    const { env, box } = benchRelayEnv('soak', { databaseUrl, temporalUrl: temporal.url, dataDir });
    const secret = `whsec_${randomBytes(24).toString('hex')}`;
    const slug = `soak-${randomBytes(4).toString('hex')}`;
    const [org, user, project, endpoint, destination] = [uuidv7(), uuidv7(), uuidv7(), uuidv7(), uuidv7()];
    await knex.raw('insert into organizations (id, name, plan) values (?, ?, ?)', [org, 'Soak', 'growth']);
    await knex.raw('insert into users (id, email) values (?, ?)', [user, `soak-${slug}@example.test`]);
    await knex.raw('insert into projects (id, organization_id, user_id, name, slug) values (?, ?, ?, ?, ?)', [project, org, user, 'Soak', slug]);
    await knex.raw('insert into webhook_endpoints (id, project_id, name, slug, signing_secret_enc) values (?, ?, ?, ?, ?)', [endpoint, project, 'Soak', slug, box.seal(secret)]);
    await knex.raw('insert into destinations (id, project_id, name, type, webhook_url_enc, signing_secret_enc) values (?, ?, ?, ?, ?, ?)', [
      destination, project, 'Receiver', 'webhook', box.seal(`http://127.0.0.1:${receiverPort}/hook`), box.seal('soak-destination-secret'),
    ]);
    await knex.raw('insert into endpoint_destinations (id, endpoint_id, destination_id) values (?, ?, ?)', [uuidv7(), endpoint, destination]);

    const nodeFlags = opts.heapSnapshots ? [`--heapsnapshot-signal=SIGUSR2`, `--diagnostic-dir=${path.resolve(opts.heapSnapshots)}`] : [];
    if (opts.heapSnapshots) fs.mkdirSync(opts.heapSnapshots, { recursive: true });
    // The worker serves /metrics on its own port (the API on its PORT), for the heap figures.
    const workerMetricsPort = await freePort();
    const processes = await startRelayProcesses({ ...env, RELAY_WORKER_METRICS_PORT: String(workerMetricsPort) }, stops, { nodeFlags });
    const metricsUrls = { api: `${processes.api.baseUrl}/metrics`, worker: `http://127.0.0.1:${workerMetricsPort}/metrics` };
    // The worker serves no webhooks: it is ready when the first delivery arrives (below).

    // Steady load: every 100 ms a tick sends rate/10 signed requests over a bounded keep-alive pool.
    const dispatcher = new Agent({ connections: 64, keepAliveTimeout: 30_000 });
    stops.push(() => dispatcher.close());
    const url = `${processes.api.baseUrl}/hooks/${slug}`;
    let seq = 0;
    let accepted = 0;
    const failures: Record<string, number> = {};
    const sendOne = async () => {
      const body = JSON.stringify({ type: 'order.created', seq: seq++, data: { id: `ord_${seq}`, note: 'x'.repeat(400) } });
      const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
      try {
        const res = await undiciFetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, dispatcher });
        await res.arrayBuffer();
        if (res.status === 202) accepted++;
        else failures[res.status] = (failures[res.status] ?? 0) + 1;
      } catch (err) {
        const key = (err as Error).name;
        failures[key] = (failures[key] ?? 0) + 1;
      }
    };
    const perTick = opts.rate / 10;
    let owed = 0;
    let paused = false;
    const inFlight = new Set<Promise<void>>();
    const ticker = setInterval(() => {
      if (paused) return;
      owed += perTick;
      for (; owed >= 1; owed--) {
        // Bounded: a stalled service makes the load back off instead of piling up requests.
        if (inFlight.size >= 2000) break;
        const p = sendOne().finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
    }, 100);
    stops.push(() => clearInterval(ticker));

    const sample = async (startedAt: number): Promise<Sample> => {
      const [api, worker] = await Promise.all([heapBytes(metricsUrls.api), heapBytes(metricsUrls.worker)]);
      return {
        elapsed_s: Math.round((Date.now() - startedAt) / 1000),
        api_rss_mib: mib(rssBytes(processes.api.child.pid!)),
        worker_rss_mib: mib(rssBytes(processes.worker.child.pid!)),
        api_heap_mib: mib(api.heap),
        worker_heap_mib: mib(worker.heap),
        api_external_mib: mib(api.external),
        worker_external_mib: mib(worker.external),
        accepted,
        delivered: (await ask<{ count: number }>(true)).count,
        load_1m: Number(os.loadavg()[0].toFixed(1)),
      };
    };
    const snapshots: string[] = [];
    const snapshot = async (label: string) => {
      const dir = opts.heapSnapshots;
      if (!dir) return;
      const before = new Set(fs.readdirSync(dir));
      // Taken between requests: objects of requests in flight would hide what stays.
      paused = true;
      await Promise.all(inFlight);
      await sleep(5000);
      for (const { child } of Object.values(processes)) child.kill('SIGUSR2');
      process.stderr.write(`soak: heap snapshots (${label}) requested into ${dir}\n`);
      for (const [name, { child }] of Object.entries(processes)) {
        const file = await snapshotWritten(dir, child.pid!, before);
        snapshots.push(`${name} ${label}: ${file}`);
        process.stderr.write(`soak: ${name} ${label}: ${file}\n`);
      }
      paused = false;
    };

    // Warm-up: one minute of load, so JIT, pools and the workflow cache reach their working size.
    process.stderr.write(`soak: warm-up 60 s at ${opts.rate} events/s\n`);
    const warmStart = Date.now();
    await sleep(60_000);
    const warm = await sample(warmStart);
    if (warm.delivered === 0) throw new Error('nothing was delivered during the warm-up: is the worker running?');
    await snapshot('after warm-up');

    const samples: Sample[] = [];
    const startedAt = Date.now();
    const endAt = startedAt + opts.minutes * 60_000;
    const acceptedAtStart = accepted;
    samples.push(await sample(startedAt));
    process.stderr.write(`soak: ${opts.minutes} min, sample every ${opts.sampleSeconds} s\n`);
    // Ctrl-C ends the run early and still cleans up (and reports what was sampled).
    let interrupted = false;
    process.once('SIGINT', () => (interrupted = true));
    while (Date.now() < endAt && !interrupted) {
      for (const until = Math.min(Date.now() + opts.sampleSeconds * 1000, endAt); Date.now() < until && !interrupted; ) await sleep(Math.min(1000, until - Date.now()));
      const s = await sample(startedAt);
      samples.push(s);
      process.stderr.write(`soak: ${JSON.stringify(s)}\n`);
      for (const { child } of Object.values(processes)) if (child.exitCode !== null) throw new Error('a relay process exited during the soak');
    }
    clearInterval(ticker);
    await Promise.all(inFlight);
    await snapshot('at the end');

    const first = samples[0];
    const last = samples[samples.length - 1];
    const peak = (key: Measure) => Math.max(...samples.map((s) => s[key]).filter(Number.isFinite));
    // Judged over the last two thirds: a leak keeps climbing there; a cache that filled up does not.
    const judged = samples.filter((s) => s.elapsed_s >= last.elapsed_s / 3);
    const measure = (key: Measure): MeasureSummary => ({ start: first[key], end: last[key], peak: peak(key), last_two_thirds: growth(judged, key) });
    const figures = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, total_mem_mib: mib(os.totalmem()), load_1m_max: Math.max(...samples.map((s) => s.load_1m)), load_1m_mean: Math.round((samples.reduce((a, s) => a + s.load_1m, 0) / samples.length) * 10) / 10 },
      options: { minutes: opts.minutes, rate: opts.rate, sample_seconds: opts.sampleSeconds },
      events_per_second_accepted: Math.round((last.accepted - acceptedAtStart) / (last.elapsed_s || 1)),
      accepted: last.accepted,
      delivered: last.delivered,
      failures,
      judged_window_min: [Math.round(judged[0].elapsed_s / 6) / 10, Math.round(last.elapsed_s / 6) / 10],
      rss_mib: { api: measure('api_rss_mib'), worker: measure('worker_rss_mib') },
      heap_used_mib: { api: measure('api_heap_mib'), worker: measure('worker_heap_mib') },
      heap_snapshots: snapshots,
      samples,
    };
    fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
    fs.writeFileSync(RESULTS, JSON.stringify(figures, null, 2) + '\n');
    writeDocSection(figures);
    process.stdout.write(JSON.stringify({ ...figures, samples: undefined }, null, 2) + '\n');
  } finally {
    for (const stop of stops.reverse()) {
      try {
        await stop();
      } catch (err) {
        process.stderr.write(`soak cleanup step failed: ${(err as Error).message}\n`);
      }
    }
  }
}

type Growth = ReturnType<typeof growth>;
type MeasureSummary = { start: number; end: number; peak: number; last_two_thirds: Growth };
type Figures = {
  date: string;
  machine: { cpus: number; node: string; load_1m_max: number; load_1m_mean: number };
  options: { minutes: number; rate: number; sample_seconds: number };
  events_per_second_accepted: number;
  accepted: number;
  delivered: number;
  failures: Record<string, number>;
  judged_window_min: number[];
  rss_mib: Record<'api' | 'worker', MeasureSummary>;
  heap_used_mib: Record<'api' | 'worker', MeasureSummary>;
  samples: Sample[];
};

function writeDocSection(f: Figures): void {
  // One row per 5 minutes (and the last), so a long run stays readable; every sample is in soak.json.
  const every = Math.max(1, Math.round(300 / f.options.sample_seconds));
  const rows = f.samples.filter((_, i) => i % every === 0 || i === f.samples.length - 1);
  const verdict = (m: MeasureSummary) => {
    const g = m.last_two_thirds;
    return `${g.window_start} → ${g.window_end} MiB on the fitted line, ${g.growth_mib >= 0 ? '+' : ''}${g.growth_mib} MiB (${g.growth_pct >= 0 ? '+' : ''}${g.growth_pct} %, ${g.mib_per_min} MiB/min)`;
  };
  const [from, to] = f.judged_window_min;
  const section = [
    '## Memory soak (`npm run bench:soak`)',
    '',
    `One run on ${f.date.slice(0, 16).replace('T', ' ')} UTC (\`npm run bench:soak -- --minutes ${f.options.minutes} --rate ${f.options.rate}\`): ${f.options.minutes} minutes (after a 1-minute warm-up) at ${f.options.rate} events/s offered (${f.events_per_second_accepted}/s accepted), ` +
      `the real \`relay api\` and \`relay worker\` processes, each event delivered to a local receiver; RSS read from /proc and the V8 heap in use from each process's /metrics every ${f.options.sample_seconds} s.`,
    `${f.machine.cpus} cores, Node ${f.machine.node}. The machine is shared with other engineers' test runs (1-minute load average ${f.machine.load_1m_mean} on average, up to ${f.machine.load_1m_max}); ` +
      'PostgreSQL, the Temporal dev server, the load generator and the receiver run on it too, so absolute figures vary between runs.',
    '',
    `| process | RSS start / peak / end (MiB) | heap in use start / peak / end (MiB) | growth, minute ${from} to ${to} (target < 5 %): RSS / heap |`,
    '|---|---|---|---|',
    ...(['api', 'worker'] as const).map((p) => {
      const [rss, heap] = [f.rss_mib[p], f.heap_used_mib[p]];
      const pct = (m: MeasureSummary) => `${m.last_two_thirds.growth_pct >= 0 ? '+' : ''}${m.last_two_thirds.growth_pct} %`;
      return `| \`relay ${p}\` | ${rss.start} / ${rss.peak} / ${rss.end} | ${heap.start} / ${heap.peak} / ${heap.end} | ${pct(rss)} / ${pct(heap)} |`;
    }),
    '',
    'Every 5 minutes:',
    '',
    '| minute | API RSS (MiB) | API heap (MiB) | worker RSS (MiB) | worker heap (MiB) | accepted | delivered | load (1 min) |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((s) => `| ${(s.elapsed_s / 60).toFixed(1)} | ${s.api_rss_mib} | ${s.api_heap_mib} | ${s.worker_rss_mib} | ${s.worker_heap_mib} | ${s.accepted} | ${s.delivered} | ${s.load_1m} |`),
    '',
    `Growth over the last two thirds (minute ${from} to ${to}; target: under 5 %), from a least-squares line through every sample:`,
    '',
    `- API RSS: ${verdict(f.rss_mib.api)}; heap in use: ${verdict(f.heap_used_mib.api)}.`,
    `- Worker RSS: ${verdict(f.rss_mib.worker)}; heap in use: ${verdict(f.heap_used_mib.worker)}.`,
    '',
    `${f.accepted} events accepted, ${f.delivered} deliveries received${Object.keys(f.failures).length ? `; refused or failed requests: ${JSON.stringify(f.failures)}` : ', no request refused or failed'}. Every sample: bench/results/soak.json.`,
  ].join('\n');
  writeBenchSection('soak', section);
}
