import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type autocannon from 'autocannon';
import { Client } from 'pg';
import { createLogger } from '../src/common/logger';
import { installTemporalRuntime } from '../src/worker/worker';
import { freePort } from '../test/support/free-port';
import { startTreeSampler } from './cpu-sampler';
import { measureCeiling } from './temporal-ceiling';
import { type StackMemory, partOf, processTree, relayHeap, stackMemory } from './stack-memory';
import { sizedBody } from './webhook-bodies';

/**
 * The service as a user runs it: `npm start` in a checkout (its package.json `start` script:
 * one `relay start` process with the API, the outbox dispatcher and the Temporal worker; the
 * embedded PostgreSQL and the Temporal dev server on its on-disk SQLite file, both started by the
 * launcher with its own settings; a fresh data directory; no NODE_ENV, LOG_LEVEL or other relay
 * setting in the environment), configured through the API as a user would (sign-up, a source, a
 * signed webhook destination to a local receiver). Phases, each with its CPU by process (the relay
 * process, Temporal, PostgreSQL) from /proc:
 * - ingest: `connections` connections of signed push-like bodies for `duration` s to a source
 *   linked to the receiver (fan-out, search rows and deliveries run meanwhile, as in real traffic);
 * - delivery: `events` events to a source linked to the receiver, sent `sendConcurrency` at a time:
 *   deliveries per second at the receiver (first send → last arrival);
 * - paced: `pacedRate` events/s for `pacedSeconds` s: send → arrival at the receiver.
 * Beside them, measured in the same run: the empty-workflow ceiling of the very dev server the
 * launcher started, and a do-nothing HTTP server's rate under the same load (absolute figures
 * vary between machines; these two say what this machine gives).
 * 127.0.0.1 only; every loop is bounded in count and time.
 */

export type Phase = 'ingest' | 'delivery' | 'paced';
export const PHASES: readonly Phase[] = ['ingest', 'delivery', 'paced'];

export interface UserPathOptions {
  /** The checkout to start (default: this one). */
  repo: string;
  phases: readonly Phase[];
  duration: number;
  connections: number;
  payloadBytes: number;
  events: number;
  sendConcurrency: number;
  pacedRate: number;
  pacedSeconds: number;
  ceilingEvents: number;
  /** Write V8 CPU profiles of the relay process (`node --cpu-prof`) here. */
  cpuProfDir?: string;
  /** Load pg_stat_statements into the embedded PostgreSQL (a restart) and report its top statements per phase. */
  pgStats: boolean;
  /** The Node binary that runs the service (its directory first on PATH for `npm start`); default: the bench's own. */
  node?: string;
  /** Seconds after /readyz before the idle memory is read. */
  idleSeconds: number;
}

export const USER_PATH_DEFAULTS: Omit<UserPathOptions, 'repo' | 'phases'> = {
  duration: 10,
  connections: 64,
  payloadBytes: 772,
  events: 3000,
  sendConcurrency: 16,
  pacedRate: 20,
  pacedSeconds: 10,
  ceilingEvents: 1000,
  pgStats: false,
  idleSeconds: 10,
};

/** CPU of one phase: cores used (CPU-seconds per second) and CPU-milliseconds per unit (event, delivery), by process. */
export interface PhaseCpu {
  seconds: number;
  cores: Record<string, number>;
  ms_per_unit: Record<string, number>;
}

export interface UserPathFigures {
  repo: string;
  commit: string;
  start_command: string;
  load_average_1m: { start: number; end: number };
  references: { do_nothing_http_requests_per_second: number; ceiling_empty_workflows_per_second: number; ceiling_temporal_cpu_ms_per_workflow: number };
  ingest?: {
    body_bytes: number;
    events_per_second: number;
    latency_ms: { p50: number; p90: number; p99: number; max: number };
    non_2xx: number;
    errors: number;
    /** Left in the outbox when the load stopped (fan-out behind ingest), and delivered meanwhile. */
    outbox_at_end: number;
    delivered_during: number;
    cpu: PhaseCpu;
    /** From the load's start until the outbox is empty again: every accepted event fanned out and indexed. */
    cpu_until_fanned_out: PhaseCpu;
    pg_top_statements?: PgStatement[];
  };
  delivery?: { events: number; deliveries_per_second: number; ratio_to_ceiling: number; send_to_receive_ms: Latency; cpu: PhaseCpu; monotonic_window_us?: [number, number]; pg_top_statements?: PgStatement[] };
  paced?: { events_per_second: number; events: number; send_to_receive_ms: Latency; cpu: PhaseCpu; timeline_ms?: PacedTimeline };
  rss_mib_after: Record<string, number>;
  /** Node version the service ran on. */
  node: string;
  /** PSS of every process of the stack (bench/stack-memory.ts): idle after start, and after every phase ran. */
  memory: { idle: StackMemory; after?: StackMemory };
}

/**
 * Where a paced delivery's time goes, median ms of each step, from the rows' own timestamps (PostgreSQL's now() is
 * the start of the transaction that wrote them) and the bench's clock (same machine):
 * - to_ingest_commit: the request sent → the group commit's transaction that stored the event began (HTTP, ingress);
 * - to_fan_out: → the dispatcher's fan-out transaction began (the commit, its NOTIFY, the dispatcher's wake-up);
 * - to_claim: → the claim that marked the delivery started began (the fan-out's commit; the claim follows it in the same pass);
 * - to_receiver: → the receiver got the POST (the eager workflow start, its first workflow task, the local
 *   activity's context query, render, sign, send);
 * - to_record: → the attempt's row was written (the answer read, the recording statement).
 */
export interface PacedTimeline {
  to_ingest_commit: number;
  to_fan_out: number;
  to_claim: number;
  to_receiver: number;
  to_record: number;
}

interface Latency {
  delivered: number;
  p50: number;
  p99: number;
  max: number;
}

interface PgStatement {
  query: string;
  calls: number;
  total_ms: number;
  ms_per_unit: number;
}

const RECEIVER = `
const http = require('node:http');
const arrivals = {};
const server = http.createServer((req, res) => {
  const at = performance.timeOrigin + performance.now();
  const header = Object.keys(req.headers).find((h) => h.endsWith('-event-id'));
  const id = header && req.headers[header];
  if (id && !(id in arrivals)) arrivals[id] = at;
  req.resume();
  req.on('end', () => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('ok'); });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m.count) process.send({ count: m.count.filter((id) => id in arrivals).length });
  if (m.dump) process.send({ arrivals: Object.fromEntries(m.dump.filter((id) => id in arrivals).map((id) => [id, arrivals[id]])) });
});
`;

/** Answers every request 202 with a small JSON body after reading it: the HTTP stack's own rate on this machine. */
const DO_NOTHING = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => { res.writeHead(202, { 'content-type': 'application/json' }); res.end('{"event_id":"0"}'); });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
`;

const THIS_REPO = path.resolve(__dirname, '..');
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, places = 1) => Math.round(n * 10 ** places) / 10 ** places;
const load1 = () => round(os.loadavg()[0]);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);
}

/** A child Node process running `script`, which sends its port first; answers IPC questions. */
async function childServer(script: string, stops: Stops): Promise<{ child: ChildProcess; port: number; ask<T>(msg: unknown): Promise<T> }> {
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  stops.push(() => child.kill());
  const next = <T>() => new Promise<T>((resolve) => child.once('message', (m) => resolve(m as T)));
  const { port } = await next<{ port: number }>();
  return {
    child,
    port,
    ask: <T>(msg: unknown) => {
      const answer = next<T>();
      child.send(msg as object);
      return answer;
    },
  };
}

type Stops = Array<() => Promise<unknown> | unknown>;

/** The checkout's `npm start`: its package.json `start` script's Node arguments (`node <flags> bin/relay.js start`). */
export function startArguments(repo: string): string[] {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = scripts.start.trim().split(/\s+/);
  if (words[0] !== 'node') throw new Error(`${repo}: the start script "${scripts.start}" does not run node`);
  return words.slice(1);
}

/** The environment a user's shell gives `npm start`: no relay setting, no NODE_ENV, no register hook of the bench's own. */
function userEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const RELAY_SETTINGS = /^(RELAY_|DATABASE_|TEMPORAL_(?!CLI_PATH)|NODE_ENV$|LOG_|PORT$|HOST$|OTEL_|SWC_|TS_NODE_|npm_)/;
  for (const [key, value] of Object.entries(process.env)) if (!RELAY_SETTINGS.test(key)) env[key] = value;
  return { ...env, ...extra };
}

/** The relay process's kind of each process in its tree. */
const kindOf = (comm: string) => (comm === 'postgres' ? 'postgres' : comm.startsWith('temporal') ? 'temporal' : comm === 'node' || comm === 'MainThread' ? 'relay' : 'other');

function phaseCpu(sample: { seconds: number; cpu_ms: Record<string, number> }, units: number): PhaseCpu {
  const kinds = ['relay', 'temporal', 'postgres'];
  return {
    seconds: round(sample.seconds),
    cores: Object.fromEntries(kinds.map((k) => [k, round((sample.cpu_ms[k] ?? 0) / 1000 / sample.seconds, 2)])),
    ms_per_unit: Object.fromEntries(kinds.map((k) => [k, round((sample.cpu_ms[k] ?? 0) / Math.max(1, units), 3)])),
  };
}

function rssMiB(pid: number | undefined): number {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Math.round(kb / 1024);
  } catch {
    return NaN;
  }
}

/** The pid of the first process named like `comm` under `root`. */
function descendantNamed(root: number, comm: RegExp): number | undefined {
  const procs = fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map((pid) => {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        const close = stat.lastIndexOf(')');
        return { pid: Number(pid), comm: stat.slice(stat.indexOf('(') + 1, close), ppid: Number(stat.slice(close + 2).split(' ')[1]) };
      } catch {
        return undefined;
      }
    })
    .filter((p) => p !== undefined);
  const under = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of procs) {
      if (under.has(p.ppid) && !under.has(p.pid)) {
        under.add(p.pid);
        grew = true;
      }
    }
  }
  return procs.find((p) => under.has(p.pid) && p.pid !== root && comm.test(p.comm))?.pid;
}

/** Autocannon in its own process (this checkout's `relay bench ingress --load`), as the ingress bench drives it; bodies of exactly `payloadBytes`. */
async function runLoadProcess(spec: { url: string; secret: string; duration: number; connections: number; payloadBytes: number }): Promise<autocannon.Result> {
  const load = spawn(process.execPath, [path.join(THIS_REPO, 'bin', 'relay.js'), 'bench', 'ingress', '--load', JSON.stringify({ ...spec, exactBytes: true })], { cwd: THIS_REPO, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  load.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise((r) => load.once('exit', r));
  if (code !== 0) throw new Error(`load process exited with ${code}`);
  return JSON.parse(out) as autocannon.Result;
}

class RelayApi {
  token = '';
  constructor(readonly base: string) {}

  async call(method: string, url: string, body?: unknown): Promise<Record<string, any>> {
    const res = await fetch(`${this.base}${url}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
    return text ? (JSON.parse(text) as Record<string, any>) : {};
  }

  /** A source linked to a signed webhook destination at `url`. */
  async sourceTo(name: string, url: string): Promise<{ id: string; slug: string; secret: string; destination: string }> {
    const source = await this.call('POST', '/v1/endpoints', { name });
    const destination = await this.call('POST', '/v1/destinations', { name, type: 'webhook', webhook_url: url, signing_secret: randomBytes(24).toString('hex') });
    await this.call('POST', `/v1/endpoints/${source.id}/destinations`, { destination_id: destination.id });
    return { id: source.id, slug: source.slug, secret: source.signing_secret, destination: destination.id };
  }
}

/** Sends signed bodies to a source; resolves with each accepted event's id and send time. */
async function sendSigned(base: string, source: { slug: string; secret: string }, body: string): Promise<{ id: string; sentAt: number }> {
  const { createHmac } = await import('node:crypto');
  const signature = `sha256=${createHmac('sha256', source.secret).update(body).digest('hex')}`;
  const sentAt = now();
  const res = await fetch(`${base}/hooks/${source.slug}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, body });
  const text = await res.text();
  if (res.status !== 202) throw new Error(`ingress answered ${res.status}: ${text}`);
  return { id: (JSON.parse(text) as { event_id: string }).event_id, sentAt };
}

/** Runs the user path once against `opts.repo`; `say` reports progress. */
export async function runUserPath(opts: UserPathOptions, say: (line: string) => void): Promise<UserPathFigures> {
  const stops: Stops = [];
  const loadStart = load1();
  try {
    const receiver = await childServer(RECEIVER, stops);
    const receiverUrl = `http://127.0.0.1:${receiver.port}`;
    const arrived = async (ids: string[]) => (await receiver.ask<{ count: number }>({ count: ids })).count;
    const arrivals = async (ids: string[]) => (await receiver.ask<{ arrivals: Record<string, number> }>({ dump: ids })).arrivals;
    const waitArrived = async (ids: string[], timeoutMs: number) => {
      for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(50)) if ((await arrived(ids)) >= ids.length) return true;
      return false;
    };

    // The HTTP stack's own rate on this machine, under the same load as ingest.
    say('user path: do-nothing HTTP server');
    const idle = await childServer(DO_NOTHING, stops);
    const nothing = await runLoadProcess({ url: `http://127.0.0.1:${idle.port}/`, secret: 'x', duration: Math.min(5, opts.duration), connections: opts.connections, payloadBytes: opts.payloadBytes });
    idle.child.kill();

    // `npm start`, as a fresh clone runs it.
    const repo = path.resolve(opts.repo);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-bench-user-'));
    stops.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const ports = { PORT: await freePort(), RELAY_PG_PORT: await freePort(), RELAY_TEMPORAL_PORT: await freePort(), RELAY_TEMPORAL_UI_PORT: await freePort() };
    const env = userEnvironment({ RELAY_DATA_DIR: path.join(dataDir, '.relay'), ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) });
    const args = startArguments(repo);
    const base = `http://127.0.0.1:${ports.PORT}`;
    const logFile = path.join(dataDir, 'relay.log');
    // `npm start` itself (npm, the shell it runs the script in, the relay), with `opts.node` first on PATH as a user's
    // shell would have it. A CPU profile needs the flag on the relay's own command line: then node is started directly.
    const node = path.resolve(opts.node ?? process.execPath);
    env.PATH = `${path.dirname(node)}${path.delimiter}${env.PATH ?? ''}`;
    let relay!: ChildProcess;
    const relayPid = () => (relay.pid === undefined ? undefined : (processTree(relay.pid).find((p) => partOf(p) === 'relay')?.pid ?? relay.pid));
    const startRelay = async (profile: boolean) => {
      const prof = profile && opts.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(opts.cpuProfDir)] : [];
      const out = fs.openSync(logFile, 'a');
      // Its own process group, signalled as a terminal's Ctrl+C signals the foreground group.
      relay = prof.length ? spawn(node, [...prof, ...args], { cwd: repo, env, stdio: ['ignore', out, out], detached: true }) : spawn('npm', ['start'], { cwd: repo, env, stdio: ['ignore', out, out], detached: true });
      fs.closeSync(out);
      for (let i = 0; !(await fetch(`${base}/readyz`).then((r) => r.ok, () => false)); i++) {
        if (relay.exitCode !== null || i > 3000) throw new Error(`relay start did not become ready (exit ${relay.exitCode}); its log: ${logFile}\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
        await sleep(100);
      }
    };
    const stopRelay = async () => {
      if (relay.exitCode !== null) return;
      process.kill(-relay.pid!, 'SIGINT');
      const exited = await Promise.race([new Promise((r) => relay.once('exit', () => r(true))), sleep(90_000).then(() => false)]);
      if (!exited) process.kill(-relay.pid!, 'SIGKILL');
    };
    const memoryNow = async (): Promise<StackMemory> => {
      const m = stackMemory(relay.pid!);
      m.relay_heap = await relayHeap(`${base}/metrics`, m.processes.find((p) => p.pid === relayPid())!.pss_kib / 1024);
      return m;
    };
    say(`user path: ${repo}: ${opts.cpuProfDir ? `node ${args.join(' ')}` : 'npm start'} on ${node} (data in ${dataDir})`);
    const began = now();
    await startRelay(!opts.pgStats);
    stops.push(stopRelay);
    say(`user path: ready in ${round((now() - began) / 1000)} s`);
    // Idle: nothing sent yet, after the start-up's own work (migrations, the retention schedule, the first polls) settled.
    await sleep(opts.idleSeconds * 1000);
    const idleMemory = await memoryNow();
    say(`user path: idle PSS ${idleMemory.pss_mib.total} MiB`);
    const databaseUrl = `postgres://relay:relay@127.0.0.1:${ports.RELAY_PG_PORT}/relay`;
    if (opts.pgStats) {
      // pg_stat_statements is loaded at server start only: set, then the whole service restarted on its data.
      const first = new Client({ connectionString: databaseUrl });
      await first.connect();
      await first.query(`alter system set shared_preload_libraries = 'pg_stat_statements'`);
      await first.end();
      await stopRelay();
      await startRelay(true);
    }
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    stops.push(() => db.end());
    if (opts.pgStats) await db.query('create extension if not exists pg_stat_statements');
    const pgTop = async (units: number): Promise<PgStatement[] | undefined> => {
      if (!opts.pgStats) return undefined;
      const { rows } = await db.query(`select query, calls::int, total_exec_time as total from pg_stat_statements order by total_exec_time desc limit 8`);
      return rows.map((r: { query: string; calls: number; total: number }) => ({
        query: r.query.replace(/\s+/g, ' ').slice(0, 160),
        calls: r.calls,
        total_ms: round(r.total),
        ms_per_unit: round(r.total / Math.max(1, units), 3),
      }));
    };
    const resetPgStats = async () => {
      if (opts.pgStats) await db.query('select pg_stat_statements_reset()');
    };

    const api = new RelayApi(base);
    api.token = (await api.call('POST', '/v1/auth/signup', { email: 'bench@example.test', password: 'user path bench password' })).access_token;
    const organization = (await api.call('GET', '/v1/organizations')).data[0].id as string;
    // The growth plan counts and logs what passes its caps instead of refusing it.
    await api.call('PUT', `/v1/organizations/${organization}/plan`, { plan: 'growth' });

    // The ceiling of the very dev server `relay start` runs (its own task queue; the relay's worker idles meanwhile).
    say('user path: the dev server\'s empty-workflow ceiling');
    installTemporalRuntime(createLogger('warn'));
    const ceiling = await measureCeiling(`127.0.0.1:${ports.RELAY_TEMPORAL_PORT}`, { concurrency: 64, ceilingEvents: opts.ceilingEvents }, { root: relay.pid!, kindOf });
    const temporalPid = descendantNamed(relay.pid!, /^temporal/);
    const figures: UserPathFigures = {
      repo,
      commit: spawnSync('git', ['-C', repo, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' }).stdout.trim().slice(0, 100),
      start_command: `node ${args.join(' ')}`,
      load_average_1m: { start: loadStart, end: NaN },
      references: {
        do_nothing_http_requests_per_second: Math.round(nothing['2xx'] / nothing.duration),
        ceiling_empty_workflows_per_second: ceiling.per_second,
        ceiling_temporal_cpu_ms_per_workflow: ceiling.tree_cpu_ms_per_workflow?.temporal ?? NaN,
      },
      rss_mib_after: {},
      node: spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim(),
      memory: { idle: idleMemory },
    };
    const sampler = () => startTreeSampler(relay.pid!, kindOf);

    if (opts.phases.includes('ingest')) {
      // Warm-up on a source of its own (JIT, pools, the endpoint cache), then its outbox drained.
      const warm = await api.sourceTo('warm-up', `${receiverUrl}/warm`);
      await runLoadProcess({ url: `${base}/hooks/${warm.slug}`, secret: warm.secret, duration: 3, connections: opts.connections, payloadBytes: opts.payloadBytes });
      await db.query('update destinations set is_active = false where id = $1', [warm.destination]);
      const outbox = async () => (await db.query('select count(*)::int as n from events where dispatched_at is null')).rows[0].n as number;
      for (let i = 0; i < 1200 && (await outbox()) > 0; i++) await sleep(100);
      await cancelUnstarted(db, warm.destination);

      const source = await api.sourceTo('ingest', `${receiverUrl}/ingest`);
      say(`user path: ingest, ${opts.connections} connections for ${opts.duration} s (load ${load1()})`);
      await resetPgStats();
      const window = sampler();
      const result = await runLoadProcess({ url: `${base}/hooks/${source.slug}`, secret: source.secret, duration: opts.duration, connections: opts.connections, payloadBytes: opts.payloadBytes });
      const during = window();
      const left = await outbox();
      const delivered = (await db.query(`select count(*)::int as n from deliveries where destination_id = $1 and status = 'success'`, [source.destination])).rows[0].n as number;
      for (let i = 0; i < 3000 && (await outbox()) > 0; i++) await sleep(100);
      const untilFannedOut = window();
      const accepted = result['2xx'];
      figures.ingest = {
        body_bytes: opts.payloadBytes,
        events_per_second: Math.round(accepted / result.duration),
        latency_ms: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
        non_2xx: result.non2xx,
        errors: result.errors,
        outbox_at_end: left,
        delivered_during: delivered,
        cpu: phaseCpu(during, accepted),
        cpu_until_fanned_out: phaseCpu(untilFannedOut, accepted),
        pg_top_statements: await pgTop(accepted),
      };
      // Its delivery backlog would take the next phases' capacity: stopped, the started ones left to finish.
      await db.query('update destinations set is_active = false where id = $1', [source.destination]);
      await cancelUnstarted(db, source.destination);
      for (let i = 0; i < 600; i++) {
        const { rows } = await db.query(`select count(*)::int as n from deliveries where destination_id = $1 and status in ('queued', 'retrying')`, [source.destination]);
        if (rows[0].n === 0) break;
        await sleep(100);
      }
    }

    if (opts.phases.includes('delivery') || opts.phases.includes('paced')) {
      const source = await api.sourceTo('deliveries', `${receiverUrl}/deliveries`);
      const body = (i: number) => sizedBody(i, opts.payloadBytes);
      const sendAll = async (count: number, concurrency: number) => {
        const sent: Array<{ id: string; sentAt: number }> = [];
        let next = 0;
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (next < count) {
              const i = next++;
              sent.push(await sendSigned(base, source, body(i)));
            }
          }),
        );
        return sent;
      };
      const latency = async (sent: Array<{ id: string; sentAt: number }>): Promise<Latency> => {
        const at = await arrivals(sent.map((s) => s.id));
        const ms = sent.filter((s) => s.id in at).map((s) => at[s.id] - s.sentAt).sort((a, b) => a - b);
        return { delivered: ms.length, p50: percentile(ms, 50), p99: percentile(ms, 99), max: percentile(ms, 100) };
      };
      // Warm-up: the delivery path's JIT, workflow cache, connections.
      const warm = await sendAll(200, opts.sendConcurrency);
      await waitArrived(warm.map((s) => s.id), 300_000);

      if (opts.phases.includes('delivery')) {
        say(`user path: ${opts.events} events to the receiver (load ${load1()})`);
        await resetPgStats();
        const window = sampler();
        const windowStartUs = Number(process.hrtime.bigint() / 1000n);
        const started = now();
        const sent = await sendAll(opts.events, opts.sendConcurrency);
        const all = await waitArrived(sent.map((s) => s.id), 30 * 60_000);
        const cpu = window();
        const windowEndUs = Number(process.hrtime.bigint() / 1000n);
        const at = await arrivals(sent.map((s) => s.id));
        const last = Math.max(...Object.values(at));
        const rate = Object.keys(at).length / ((last - started) / 1000);
        if (!all) say(`user path: only ${Object.keys(at).length} of ${opts.events} arrived`);
        figures.delivery = {
          events: opts.events,
          deliveries_per_second: round(rate),
          ratio_to_ceiling: round(rate / ceiling.per_second, 2),
          send_to_receive_ms: await latency(sent),
          cpu: phaseCpu(cpu, Object.keys(at).length),
          monotonic_window_us: [windowStartUs, windowEndUs],
          pg_top_statements: await pgTop(Object.keys(at).length),
        };
        await sleep(2000);
      }

      if (opts.phases.includes('paced')) {
        const count = Math.round(opts.pacedRate * opts.pacedSeconds);
        say(`user path: paced, ${opts.pacedRate} events/s for ${opts.pacedSeconds} s (load ${load1()})`);
        const window = sampler();
        const began = now();
        const sends: Array<Promise<{ id: string; sentAt: number }>> = [];
        for (let i = 0; i < count; i++) {
          const wait = began + (i * 1000) / opts.pacedRate - now();
          if (wait > 1) await sleep(wait);
          sends.push(sendSigned(base, source, body(i)));
        }
        const sent = await Promise.all(sends);
        await waitArrived(sent.map((s) => s.id), 120_000);
        const cpu = phaseCpu(window(), count);
        figures.paced = { events_per_second: opts.pacedRate, events: count, send_to_receive_ms: await latency(sent), cpu, timeline_ms: await pacedTimeline(db, sent, await arrivals(sent.map((s) => s.id))) };
      }
    }

    figures.rss_mib_after = { relay: rssMiB(relayPid()), temporal: rssMiB(temporalPid) };
    figures.memory.after = await memoryNow();
    figures.load_average_1m.end = load1();
    return figures;
  } finally {
    for (const stop of stops.reverse()) {
      try {
        await stop();
      } catch (err) {
        say(`user path cleanup: ${String(err)}`);
      }
    }
  }
}

/** The median of each step of the paced deliveries' path (PacedTimeline). */
async function pacedTimeline(db: Client, sent: Array<{ id: string; sentAt: number }>, arrivedAt: Record<string, number>): Promise<PacedTimeline> {
  const { rows } = await db.query(
    `select e.id, extract(epoch from e.created_at) * 1000 as committed, extract(epoch from e.dispatched_at) * 1000 as fanned,
            extract(epoch from d.workflow_started_at) * 1000 as claimed, extract(epoch from a.created_at) * 1000 as recorded
       from events e join deliveries d on d.event_id = e.id join delivery_attempts a on a.delivery_id = d.id and a.attempt_number = 1
      where e.id = any($1::uuid[])`,
    [sent.map((s) => s.id)],
  );
  const sentAt = new Map(sent.map((s) => [s.id, s.sentAt]));
  const steps: Record<keyof PacedTimeline, number[]> = { to_ingest_commit: [], to_fan_out: [], to_claim: [], to_receiver: [], to_record: [] };
  for (const r of rows as Array<{ id: string; committed: string; fanned: string; claimed: string; recorded: string }>) {
    const arrived = arrivedAt[r.id];
    if (arrived === undefined) continue;
    const at = [sentAt.get(r.id)!, Number(r.committed), Number(r.fanned), Number(r.claimed), arrived, Number(r.recorded)];
    (Object.keys(steps) as Array<keyof PacedTimeline>).forEach((step, i) => steps[step].push(at[i + 1] - at[i]));
  }
  const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
  return Object.fromEntries(Object.entries(steps).map(([k, xs]) => [k, median(xs)])) as unknown as PacedTimeline;
}

/** The destination's deliveries whose workflow has not started: canceled (the bench's own clean-up between phases). */
async function cancelUnstarted(db: Client, destination: string): Promise<void> {
  await db.query(
    `update deliveries set status = 'canceled', next_retry_at = null, completed_at = now()
      where destination_id = $1 and status in ('queued', 'retrying') and workflow_started_at is null`,
    [destination],
  );
}
