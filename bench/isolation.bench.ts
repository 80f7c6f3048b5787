import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from '@mikro-orm/postgresql';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import { createClient, type Client as WsClient } from 'graphql-ws';
import { Agent, fetch as undiciFetch } from 'undici';
import WebSocket from 'ws';
import { issueAccessToken } from '../src/auth/tokens';
import { uuidv7 } from '../src/common/ids';
import { NOTIFY } from '../src/common/notify-channels';
import type { SecretBox } from '../src/common/secret-box';
import { loadConfig } from '../src/config/config';
import { createOrm, migrate } from '../src/db/orm';
import { deliveryWorkflowId } from '../src/temporal/delivery-workflows';
import { freePort } from '../test/support/free-port';
import { startBenchPostgres } from './bench-database';
import { runStops, saveFigures, writeBenchSection } from './bench-output';
import { benchRelayEnv, startBenchTemporal, startRelayProcesses } from './bench-stack';

/**
 * `npm run bench:isolation [-- --seconds 40 --grace 30 --settle 60 --noise-events 500 --cli-events 200
 *   --backlog-events 10000 --slow-ms 25000 --slot-wait-ms 250 --only baseline,a,e --label before
 *   --no-save --log FILE]`
 *
 * Delivery isolation (issue 16), in one run: `relay api` and `relay worker` as
 * separate processes on a private PostgreSQL and Temporal dev server. A fast
 * tenant (its own organization, project, endpoint and webhook destination to a
 * fast receiver in a child process) sends one signed event per second for
 * `--seconds`; each event's latency is ingress 202 → arrival at its receiver.
 * That is measured at baseline, then under each noise from another
 * organization, one after another, each in its own project:
 *  (a) `--noise-events` events to a destination answering after `--slow-ms`;
 *  (b) the same count to a destination refusing connections (a closed port);
 *  (c) the same count to a destination that accepts and never answers;
 *  (d) a `cli` destination whose listen session (simulated over graphql-ws,
 *      subscribed to cliForwards, never reporting) gets `--cli-events` forwards;
 *  (e) a `--backlog-events` backlog for one destination (a fast receiver),
 *      committed into the outbox at once as ingress commits events.
 * (a)–(d) are signed requests to ingress, 16 at a time. A window ends `--grace` s after its last fast event at the latest (a fast
 * event not delivered by then counts as undelivered, and its latency as above
 * the grace). Then the noise is cleaned up: its destination deactivated, its
 * undispatched events marked dispatched, its open deliveries canceled in SQL and
 * their workflows terminated, its receiver's held requests answered, its CLI
 * disconnected; probes then wait (at most `--settle` s) until the fast tenant
 * is fast again, so each noise starts fresh (after the last window the stack
 * is simply torn down). Per window: the fast tenant's
 * p50/p99/max, the 1-minute load average, and from the rows whether a fast
 * delivery waited for capacity: event created → delivery created (the outbox
 * window) or delivery created → its send started (workflow start, task queue,
 * worker slot) above `--slot-wait-ms`.
 * 127.0.0.1 only; bounded (a watchdog stops it after 20 minutes). Writes
 * bench/results/isolation.json (runs kept by `--label`) and the "Delivery
 * isolation" section of docs/benchmarks.md.
 */
const REPO = path.resolve(__dirname, '..');
const RESULTS = path.join(REPO, 'bench', 'results', 'isolation.json');
const TARGET_P99_MS = 500;
const WATCHDOG_MS = 20 * 60_000;

/** The fast tenant's receiver: notes when each event first arrives (the `X-<prefix>-Event-ID` header), answers 200. */
const FAST_RECEIVER = `
const http = require('node:http');
const arrivals = {};
const server = http.createServer((req, res) => {
  const name = Object.keys(req.headers).find((h) => h.endsWith('-event-id'));
  const id = name && req.headers[name];
  if (id && !(id in arrivals)) arrivals[id] = performance.timeOrigin + performance.now();
  req.resume();
  req.on('end', () => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('ok'); });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', () => process.send({ arrivals }));
`;

/**
 * The noise's receivers, in another process: a fast sink, a slow one (answers
 * after SLOW_MS) and a silent one (never answers). 'release' answers every held
 * request and closes every silent socket (the cleanup between noises).
 */
const NOISE_RECEIVERS = `
const http = require('node:http');
const counts = { sink: 0, slow: 0, silent: 0 };
const held = new Set();
const listen = (handler) => new Promise((resolve) => {
  const server = http.createServer(handler);
  server.keepAliveTimeout = 60000;
  server.requestTimeout = 0;
  server.listen(0, '127.0.0.1', () => resolve(server.address().port));
});
const answer = (res) => { if (!res.writableEnded) { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('ok'); } };
Promise.all([
  listen((req, res) => { counts.sink++; req.resume(); req.on('end', () => answer(res)); }),
  listen((req, res) => {
    counts.slow++; req.resume(); held.add(res);
    const timer = setTimeout(() => { held.delete(res); answer(res); }, Number(process.env.SLOW_MS));
    res.on('close', () => { clearTimeout(timer); held.delete(res); });
  }),
  listen((req, res) => { counts.silent++; req.resume(); held.add(res); res.on('close', () => held.delete(res)); }),
]).then(([sink, slow, silent]) => process.send({ ports: { sink, slow, silent } }));
process.on('message', (m) => {
  if (m === 'release') for (const res of [...held]) { held.delete(res); res.socket ? res.socket.destroy() : answer(res); }
  process.send({ counts: { ...counts }, held: held.size });
});
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();
const round = (n: number) => Math.round(n * 10) / 10;
const load1m = () => Number(os.loadavg()[0].toFixed(2));

interface Options {
  seconds: number;
  grace: number;
  settle: number;
  noiseEvents: number;
  cliEvents: number;
  backlogEvents: number;
  slowMs: number;
  slotWaitMs: number;
  only: string[] | null;
  label: string;
  /** Print the run instead of writing bench/results/isolation.json and docs/benchmarks.md (an A/B while investigating). */
  save: boolean;
  /** Where the relay processes' log goes (kept after the run; default: the run's temporary directory). */
  log: string | null;
}

function parseArgs(args: string[]): Options {
  const get = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const num = (name: string, fallback: number, min: number, max: number) => {
    const value = Number(get(name) ?? fallback);
    if (!(Number.isInteger(value) && value >= min && value <= max)) throw new Error(`--${name} must be an integer from ${min} to ${max}`);
    return value;
  };
  const only = get('only')?.split(',').map((s) => s.trim()) ?? null;
  const unknown = only?.filter((key) => !['baseline', ...NOISES.map((n) => n.key)].includes(key));
  if (unknown?.length) throw new Error(`--only: unknown window(s) ${unknown.join(', ')} (baseline, ${NOISES.map((n) => n.key).join(', ')})`);
  const label = get('label') ?? 'latest';
  if (!/^[a-z0-9-]{1,40}$/.test(label)) throw new Error('--label: lowercase letters, digits and dashes');
  return {
    seconds: num('seconds', 40, 5, 600),
    grace: num('grace', 30, 1, 600),
    settle: num('settle', 60, 1, 600),
    noiseEvents: num('noise-events', 500, 1, 100_000),
    cliEvents: num('cli-events', 200, 1, 100_000),
    backlogEvents: num('backlog-events', 10_000, 1, 1_000_000),
    slowMs: num('slow-ms', 25_000, 1, 300_000),
    slotWaitMs: num('slot-wait-ms', 250, 1, 60_000),
    only,
    label,
    save: !args.includes('--no-save'),
    log: get('log') ?? null,
  };
}

/** Percentiles over latencies where `Infinity` stands for "not delivered within the grace" (reported as null). */
function stats(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (p: number) => {
    if (sorted.length === 0) return null;
    const v = sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
    return Number.isFinite(v) ? round(v) : null;
  };
  return { p50_ms: at(50), p99_ms: at(99), max_ms: at(100) };
}

interface Tenant {
  org: string;
  user: string;
  project: string;
  endpoint: string;
  slug: string;
  secret: string;
  destination?: string;
}

interface Stack {
  knex: Knex;
  box: SecretBox;
  baseUrl: string;
  env: NodeJS.ProcessEnv;
  temporal: Client;
  agent: Agent;
}

/** An organization (Growth plan: ingress counts but does not refuse), its owner, a project, an endpoint and, with `destinationUrl`, a webhook destination linked to it. */
async function createTenant(stack: Stack, name: string, destinationUrl?: string): Promise<Tenant> {
  const { knex, box } = stack;
  const [org, user, project, endpoint] = [uuidv7(), uuidv7(), uuidv7(), uuidv7()];
  const slug = `${name}-${randomBytes(3).toString('hex')}`;
  const secret = `whsec_${randomBytes(24).toString('hex')}`;
  await knex.raw('insert into organizations (id, name, plan) values (?, ?, ?)', [org, name, 'growth']);
  await knex.raw('insert into users (id, email) values (?, ?)', [user, `${slug}@example.test`]);
  await knex.raw('insert into organization_members (id, organization_id, user_id, role) values (?, ?, ?, ?)', [uuidv7(), org, user, 'owner']);
  await knex.raw('insert into projects (id, organization_id, user_id, name, slug) values (?, ?, ?, ?, ?)', [project, org, user, name, slug]);
  await knex.raw('insert into webhook_endpoints (id, project_id, name, slug, signing_secret_enc) values (?, ?, ?, ?, ?)', [endpoint, project, name, slug, box.seal(secret)]);
  const tenant: Tenant = { org, user, project, endpoint, slug, secret };
  if (destinationUrl) {
    tenant.destination = uuidv7();
    await knex.raw('insert into destinations (id, project_id, name, type, webhook_url_enc) values (?, ?, ?, ?, ?)', [
      tenant.destination, project, name, 'webhook', box.seal(destinationUrl),
    ]);
    await knex.raw('insert into endpoint_destinations (id, endpoint_id, destination_id) values (?, ?, ?)', [uuidv7(), endpoint, tenant.destination]);
  }
  return tenant;
}

/** One signed event through ingress; resolves with its id and when the 202 arrived (null id when refused). */
async function ingest(stack: Stack, tenant: Tenant, body: string): Promise<{ eventId: string | null; at: number; status: number }> {
  const res = await undiciFetch(`${stack.baseUrl}/hooks/${tenant.slug}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', tenant.secret).update(body).digest('hex')}` },
    dispatcher: stack.agent,
  });
  const at = now();
  const json = (await res.json().catch(() => ({}))) as { event_id?: string };
  return { eventId: res.status === 202 ? (json.event_id ?? null) : null, at, status: res.status };
}

/** Sends `count` events, `concurrency` at a time, until done or `stopped()`; returns what ingress answered. */
async function sendNoise(stack: Stack, tenant: Tenant, count: number, concurrency: number, stopped: () => boolean) {
  const started = now();
  let next = 0;
  const statuses: Record<string, number> = {};
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count && !stopped()) {
        const n = next++;
        const key = await ingest(stack, tenant, JSON.stringify({ type: 'noise', n, note: 'x'.repeat(200) })).then(
          (r) => String(r.status),
          (err: Error) => err.name,
        );
        statuses[key] = (statuses[key] ?? 0) + 1;
      }
    }),
  );
  return { sent: next, answers: statuses, seconds: round((now() - started) / 1000) };
}

/**
 * A backlog: `count` events committed straight into the outbox the way ingress
 * commits them (multi-row INSERT + NOTIFY per transaction, 1,000 per
 * transaction), so the whole backlog exists within seconds whatever ingress's
 * own rate on this machine.
 */
async function commitBacklog(stack: Stack, tenant: Tenant, count: number) {
  const started = now();
  const payload = JSON.stringify({ type: 'noise', note: 'x'.repeat(200) });
  for (let sent = 0; sent < count; sent += 1000) {
    const ids = Array.from({ length: Math.min(1000, count - sent) }, () => uuidv7());
    await stack.knex.transaction(async (trx) => {
      await trx.raw(
        `insert into events (id, endpoint_id, project_id, organization_id, event_type, payload, headers, status)
         select id, ?, ?, ?, 'noise', ?::json, '{}'::json, 'received' from unnest(?::uuid[]) as id`,
        [tenant.endpoint, tenant.project, tenant.org, payload, `{${ids.join(',')}}`],
      );
      await trx.raw(`select pg_notify('${NOTIFY.eventsCommitted}', '')`);
    });
  }
  return { sent: count, committed_in_outbox: true, seconds: round((now() - started) / 1000) };
}

/** A child process that reports its first message (its ports) and answers every message with one. */
function spawnHelper(script: string, env: NodeJS.ProcessEnv, stops: Array<() => unknown>) {
  const child: ChildProcess = spawn(process.execPath, ['-e', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  stops.push(() => child.kill());
  const ask = <T>(msg?: string) =>
    new Promise<T>((resolve) => {
      child.once('message', (m) => resolve(m as T));
      if (msg) child.send(msg);
    });
  return { child, ask };
}

/** A simulated `relay listen`: starts a CLI session for the tenant's endpoint, subscribes to cliForwards and never reports. */
async function startSilentCli(stack: Stack, tenant: Tenant): Promise<{ ws: WsClient; forwards: () => number }> {
  const { token } = await issueAccessToken(loadConfig({ ...stack.env, NODE_ENV: 'development' }), tenant.user);
  const res = await undiciFetch(`${stack.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({
      query: 'mutation($p: ID, $i: StartCliSessionInput!) { startCliSession(projectId: $p, input: $i) { destination { id } } }',
      variables: { p: tenant.project, i: { machine: 'bench-silent', sourceSlugs: [tenant.slug] } },
    }),
    dispatcher: stack.agent,
  });
  const body = (await res.json()) as { data?: { startCliSession: { destination: { id: string } } }; errors?: unknown };
  if (!body.data) throw new Error(`startCliSession: ${JSON.stringify(body.errors)}`);
  tenant.destination = body.data.startCliSession.destination.id;
  let forwards = 0;
  const ws = createClient({ url: `${stack.baseUrl.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, retryAttempts: 0 });
  ws.subscribe(
    { query: 'subscription($p: ID, $d: ID!) { cliForwards(projectId: $p, destinationId: $d) { id } }', variables: { p: tenant.project, d: tenant.destination } },
    { next: () => void (forwards += 1), error: (err) => process.stderr.write(`isolation bench: cliForwards: ${JSON.stringify(err)}\n`), complete: () => undefined },
  );
  // Connected once the API process holds the session's presence row.
  for (let i = 0; i < 200; i++) {
    const { rows } = await stack.knex.raw('select count(*)::int as n from cli_sessions where destination_id = ?', [tenant.destination]);
    if (rows[0].n > 0) return { ws, forwards: () => forwards };
    await sleep(50);
  }
  throw new Error('the simulated CLI did not connect');
}

interface NoiseSpec {
  key: string;
  describe: (o: Options) => string;
  events: (o: Options) => number;
  /** The noise destination's URL (unset: a `cli` destination with a silent listen session). */
  url?: (ports: { sink: number; slow: number; silent: number; closed: number }) => string;
  /** Signed requests to ingress, this many at a time; 'backlog': committed into the outbox at once (commitBacklog). */
  ingest: number | 'backlog';
}

const NOISES: NoiseSpec[] = [
  { key: 'a', describe: (o) => `(a) ${o.noiseEvents} events to a destination answering after ${o.slowMs / 1000} s`, events: (o) => o.noiseEvents, url: (p) => `http://127.0.0.1:${p.slow}/hook`, ingest: 16 },
  { key: 'b', describe: (o) => `(b) ${o.noiseEvents} events to a destination refusing connections`, events: (o) => o.noiseEvents, url: (p) => `http://127.0.0.1:${p.closed}/hook`, ingest: 16 },
  { key: 'c', describe: (o) => `(c) ${o.noiseEvents} events to a destination that accepts and never answers`, events: (o) => o.noiseEvents, url: (p) => `http://127.0.0.1:${p.silent}/hook`, ingest: 16 },
  { key: 'd', describe: (o) => `(d) ${o.cliEvents} forwards to a \`cli\` session that never answers`, events: (o) => o.cliEvents, ingest: 16 },
  { key: 'e', describe: (o) => `(e) a ${o.backlogEvents}-event backlog for one destination (fast receiver), committed into the outbox at once`, events: (o) => o.backlogEvents, url: (p) => `http://127.0.0.1:${p.sink}/hook`, ingest: 'backlog' },
];

/**
 * Where each fast delivery's time went, from its rows; "waited" when the outbox
 * or the path to its send took longer than `slotWaitMs`. For the ones that
 * waited, their workflow histories split the path to the send (whereWaited).
 */
async function slotWaits(stack: Stack, eventIds: string[], delivered: string[], slotWaitMs: number) {
  const { knex } = stack;
  // An attempt row is written once its send is answered: give the delivered ones' rows a moment to land.
  for (let i = 0; i < 100; i++) {
    const { rows } = await knex.raw('select count(*)::int as n from delivery_attempts where attempt_number = 1 and event_id = any(?::uuid[])', [`{${delivered.join(',')}}`]);
    if (rows[0].n >= delivered.length) break;
    await sleep(100);
  }
  const { rows } = await knex.raw(
    `select d.id as delivery_id,
            extract(epoch from d.created_at) * 1000 as created_ms,
            extract(epoch from a.created_at) * 1000 - a.latency_ms as send_ms,
            extract(epoch from d.created_at - e.created_at) * 1000 as outbox_ms,
            extract(epoch from d.workflow_started_at - d.created_at) * 1000 as start_ms,
            extract(epoch from a.created_at - d.created_at) * 1000 - coalesce(a.latency_ms, 0) as to_send_ms
       from events e
       left join deliveries d on d.event_id = e.id
       left join delivery_attempts a on a.delivery_id = d.id and a.attempt_number = 1
      where e.id = any(?::uuid[])`,
    [`{${eventIds.join(',')}}`],
  );
  const column = (name: string) => rows.map((r: Record<string, number | null>) => (r[name] === null ? Infinity : Number(r[name])));
  const outbox = column('outbox_ms');
  const toSend = column('to_send_ms');
  const waitedRows = rows.filter((_: unknown, i: number) => !(outbox[i] <= slotWaitMs) || !(toSend[i] <= slotWaitMs));
  return {
    threshold_ms: slotWaitMs,
    waited: waitedRows.length,
    event_to_delivery_ms: stats(outbox),
    delivery_to_workflow_started_ms: stats(column('start_ms')),
    delivery_to_send_ms: stats(toSend),
    where_waited: await whereWaited(stack.temporal, waitedRows),
  };
}

/**
 * For deliveries that waited: delivery row created → workflow started (the
 * dispatcher's claim and start), → its first workflow task started (task queue,
 * workflow-task slot), → its send (local-activity slot, admission, connection);
 * and how many slept on a workflow timer before sending (throttled or deferred).
 */
async function whereWaited(temporal: Client, waited: Array<{ delivery_id: string | null; created_ms: number; send_ms: number | null }>) {
  const split = { created_to_workflow_started_ms: [] as number[], workflow_started_to_first_task_ms: [] as number[], first_task_to_send_ms: [] as number[] };
  let timerBeforeSend = 0;
  for (const row of waited) {
    if (!row.delivery_id) continue;
    const history = await temporal.workflow.getHandle(deliveryWorkflowId(row.delivery_id)).fetchHistory().catch(() => null);
    const events = history?.events ?? [];
    const at = (e: (typeof events)[number] | undefined) => (e?.eventTime ? tsToMs(e.eventTime) : NaN);
    const started = at(events.find((e) => e.workflowExecutionStartedEventAttributes));
    const firstTask = at(events.find((e) => e.workflowTaskStartedEventAttributes));
    const send = row.send_ms === null ? Infinity : Number(row.send_ms);
    split.created_to_workflow_started_ms.push(started - Number(row.created_ms));
    split.workflow_started_to_first_task_ms.push(firstTask - started);
    split.first_task_to_send_ms.push(send - firstTask);
    if (events.some((e) => e.timerStartedEventAttributes && at(e) < send)) timerBeforeSend += 1;
  }
  const known = (values: number[]) => values.filter((v) => !Number.isNaN(v));
  return {
    deliveries: waited.length,
    delivery_ids: waited.map((row) => row.delivery_id),
    slept_on_a_timer_before_sending: timerBeforeSend,
    created_to_workflow_started_ms: stats(known(split.created_to_workflow_started_ms)),
    workflow_started_to_first_task_ms: stats(known(split.workflow_started_to_first_task_ms)),
    first_task_to_send_ms: stats(known(split.first_task_to_send_ms)),
  };
}

/** Ends a noise: no new deliveries, open ones canceled and their workflows terminated, held requests answered. */
async function cleanUp(stack: Stack, tenant: Tenant, release: () => Promise<unknown>) {
  const startedAt = now();
  await stack.knex.raw('update destinations set is_active = false where project_id = ?', [tenant.project]);
  await stack.knex.raw('update events set dispatched_at = now() where project_id = ? and dispatched_at is null', [tenant.project]);
  const { rows } = await stack.knex.raw(
    `update deliveries set status = 'canceled', next_retry_at = null, completed_at = now()
      where project_id = ? and status in ('queued', 'retrying') returning id, workflow_started_at is not null as started`,
    [tenant.project],
  );
  // A delivery whose workflow never started has nothing to terminate (the dispatcher does not start a canceled one).
  const started: Array<{ id: string }> = rows.filter((r: { started: boolean }) => r.started);
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < started.length) {
        const { id } = started[next++];
        await stack.temporal.workflow
          .getHandle(deliveryWorkflowId(id))
          .terminate('isolation bench: noise window over')
          .catch((err) => {
            if (!(err instanceof WorkflowNotFoundError)) throw err;
          });
      }
    }),
  );
  await release();
  return { deliveries_canceled: rows.length, workflows_terminated: started.length, seconds: round((now() - startedAt) / 1000) };
}

type Window = Awaited<ReturnType<typeof runWindow>>;

/** One window: the fast tenant's paced events, beside `noise` when given; then the noise's cleanup and a settle. */
async function runWindow(
  stack: Stack,
  opts: Options,
  fast: { tenant: Tenant; arrivals: () => Promise<Record<string, number>> },
  noise: { spec: NoiseSpec; tenant: Tenant; release: () => Promise<unknown>; progress: () => Promise<Record<string, unknown>> } | null,
  last: boolean,
) {
  const name = noise ? noise.spec.describe(opts) : 'baseline (no noise)';
  process.stderr.write(`isolation bench: ${name}, ${opts.seconds} fast events\n`);
  let stopNoise = false;
  const noiseSending = !noise
    ? null
    : noise.spec.ingest === 'backlog'
      ? commitBacklog(stack, noise.tenant, noise.spec.events(opts))
      : sendNoise(stack, noise.tenant, noise.spec.events(opts), noise.spec.ingest, () => stopNoise);

  // The fast tenant: one event per second, on schedule whatever ingress answers meanwhile.
  const ingested = new Map<string, number>();
  const refused: number[] = [];
  const start = now();
  const sends: Promise<void>[] = [];
  for (let i = 0; i < opts.seconds; i++) {
    const wait = start + i * 1000 - now();
    if (wait > 1) await sleep(wait);
    sends.push(
      ingest(stack, fast.tenant, JSON.stringify({ type: 'order.created', seq: i, data: { id: `ord_${i}`, amount: 4200 } })).then(
        (r) => void (r.eventId ? ingested.set(r.eventId, r.at) : refused.push(r.status)),
        () => void refused.push(0),
      ),
    );
  }
  await Promise.all(sends);
  const lastSent = now();
  let arrivals = await fast.arrivals();
  while (now() - lastSent < opts.grace * 1000 && [...ingested.keys()].some((id) => !(id in arrivals))) {
    await sleep(250);
    arrivals = await fast.arrivals();
  }
  const latencies = [...ingested].map(([id, at]) => (id in arrivals ? arrivals[id] - at : Infinity));
  const load = load1m();
  const waits = await slotWaits(stack, [...ingested.keys()], [...ingested.keys()].filter((id) => id in arrivals), opts.slotWaitMs);

  let noiseFigures: Record<string, unknown> | null = null;
  if (noise) {
    const progress = await noise.progress();
    stopNoise = true;
    const sent = await noiseSending!;
    const { rows } = await stack.knex.raw(`select status, count(*)::int as n from deliveries where project_id = ? group by status`, [noise.tenant.project]);
    const byStatus = Object.fromEntries(rows.map((r: { status: string; n: number }) => [r.status, r.n]));
    // After the last window the stack is torn down: nothing to clean.
    const cleanup = last ? null : await cleanUp(stack, noise.tenant, noise.release);
    noiseFigures = { ingested: sent, deliveries_by_status_at_window_end: byStatus, ...progress, cleanup };
  }
  const settle = last ? null : await settleFast(stack, opts, fast);
  const f = stats(latencies);
  const undelivered = latencies.filter((l) => !Number.isFinite(l)).length;
  return {
    key: noise?.spec.key ?? 'baseline',
    name,
    fast_tenant: { sent: opts.seconds, accepted: ingested.size, refused: refused.length, delivered: ingested.size - undelivered, undelivered_within_grace: undelivered, ...f },
    slot_wait: waits,
    load_average_1m: load,
    noise: noiseFigures,
    settle,
    met: undelivered === 0 && refused.length === 0 && f.p99_ms !== null && f.p99_ms <= TARGET_P99_MS && waits.waited === 0,
  };
}

/** Probes the fast tenant, one event at a time, until three in a row arrive within the target (at most `--settle` s). */
async function settleFast(stack: Stack, opts: Options, fast: { tenant: Tenant; arrivals: () => Promise<Record<string, number>> }) {
  const started = now();
  let fastInARow = 0;
  while (fastInARow < 3 && now() - started < opts.settle * 1000) {
    const r = await ingest(stack, fast.tenant, JSON.stringify({ type: 'probe' }));
    let arrived: number | undefined;
    while (r.eventId && arrived === undefined && now() - started < opts.settle * 1000) {
      arrived = (await fast.arrivals())[r.eventId];
      if (arrived === undefined) await sleep(20);
    }
    fastInARow = arrived !== undefined && arrived - r.at <= TARGET_P99_MS ? fastInARow + 1 : 0;
  }
  return { seconds: round((now() - started) / 1000), settled: fastInARow >= 3 };
}

export async function main(args: string[]): Promise<void> {
  const opts = parseArgs(args);
  const stops: Array<() => Promise<unknown> | unknown> = [];
  let watchdog: NodeJS.Timeout | undefined;
  let logFile = '';
  const loadAtStart = load1m();
  try {
    await Promise.race([
      new Promise((_, reject) => {
        watchdog = setTimeout(() => reject(new Error(`isolation bench: stopped by its watchdog after ${WATCHDOG_MS / 60_000} minutes`)), WATCHDOG_MS);
      }),
      (async () => {
        const { dataDir, url: databaseUrl } = await startBenchPostgres('isolation', stops);
        logFile = opts.log ? path.resolve(opts.log) : path.join(dataDir, 'relay.log');
        const orm = await createOrm(databaseUrl);
        await migrate(orm);
        stops.push(() => orm.close());
        const temporalServer = await startBenchTemporal('isolation', stops, dataDir);

        const fastReceiver = spawnHelper(FAST_RECEIVER, {}, stops);
        const noiseReceivers = spawnHelper(NOISE_RECEIVERS, { SLOW_MS: String(opts.slowMs) }, stops);
        const { port: fastPort } = await fastReceiver.ask<{ port: number }>();
        const { ports } = await noiseReceivers.ask<{ ports: { sink: number; slow: number; silent: number } }>();
        // Nothing listens there: connections are refused.
        const closed = await freePort();

        const { env, box } = benchRelayEnv('isolation', { databaseUrl, temporalUrl: temporalServer.url, dataDir });
        // The relay's logs go to a file, shown when the run fails.
        const log = fs.openSync(logFile, 'a');
        stops.push(() => fs.closeSync(log));
        const { api } = await startRelayProcesses(env, stops, { stdio: ['ignore', log, log] });
        const temporalConnection = await Connection.connect({ address: temporalServer.url });
        stops.push(() => temporalConnection.close());
        const agent = new Agent({ connections: 64, keepAliveTimeout: 30_000 });
        stops.push(() => agent.close());
        const stack: Stack = {
          knex: orm.em.getConnection().getKnex(),
          box,
          baseUrl: api.baseUrl,
          env,
          temporal: new Client({ connection: temporalConnection }),
          agent,
        };

        const fast = {
          tenant: await createTenant(stack, 'fast', `http://127.0.0.1:${fastPort}/hook`),
          arrivals: async () => (await fastReceiver.ask<{ arrivals: Record<string, number> }>('dump')).arrivals,
        };
        // Warm-up (workflow bundle, pools, JIT): the fast tenant is fast before the first window.
        const warm = await settleFast(stack, { ...opts, settle: 120 }, fast);
        if (!warm.settled) throw new Error(`the fast tenant is not fast after ${warm.seconds} s of warm-up (log: ${logFile})`);

        const windows: Window[] = [];
        const noises = NOISES.filter((n) => !opts.only || opts.only.includes(n.key));
        if (!opts.only || opts.only.includes('baseline')) windows.push(await runWindow(stack, opts, fast, null, noises.length === 0));
        for (const spec of noises) {
          const tenant = await createTenant(stack, `noise-${spec.key}`, spec.url?.({ ...ports, closed }));
          const cli = spec.url ? null : await startSilentCli(stack, tenant);
          const countsAtStart = (await noiseReceivers.ask<{ counts: Record<string, number> }>('counts')).counts;
          const noise = {
            spec,
            tenant,
            release: async () => {
              await cli?.ws.dispose();
              return noiseReceivers.ask('release');
            },
            progress: async () => {
              if (cli) return { cli_forwards_received: cli.forwards() };
              const { counts, held } = await noiseReceivers.ask<{ counts: Record<string, number>; held: number }>('counts');
              const received = Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v - countsAtStart[k]]).filter(([, v]) => v !== 0));
              return { noise_receiver_requests: received, requests_held_open: held };
            },
          };
          windows.push(await runWindow(stack, opts, fast, noise, spec === noises[noises.length - 1]));
        }

        const run = {
          date: new Date().toISOString(),
          commit: gitHead(),
          machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version },
          load_average_1m_at_start: loadAtStart,
          options: { ...opts, only: opts.only ?? undefined },
          target: { fast_p99_ms_at_most: TARGET_P99_MS, no_fast_delivery_waits_for_a_slot: true },
          windows,
          met: windows.every((w) => w.key === 'baseline' || w.met),
        };
        if (!opts.save) {
          process.stdout.write(`${JSON.stringify(run, null, 2)}\n`);
          return;
        }
        const previous = fs.existsSync(RESULTS) ? (JSON.parse(fs.readFileSync(RESULTS, 'utf8')) as { runs?: Record<string, typeof run> }).runs ?? {} : {};
        saveFigures(RESULTS, { runs: { ...previous, [opts.label]: run } });
        // The doc shows the current run only; earlier labelled runs stay in bench/results/isolation.json.
        writeDocSection(run);
      })(),
    ]);
  } catch (err) {
    if (logFile && fs.existsSync(logFile)) {
      process.stderr.write(`isolation bench failed; the last lines of the relay's log:\n${fs.readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n')}\n`);
    }
    throw err;
  } finally {
    clearTimeout(watchdog);
    await runStops(stops, (err) => process.stderr.write(`isolation bench cleanup: ${String(err)}\n`));
  }
}

function gitHead(): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

const ms = (v: number | null, cap: number) => (v === null ? `> ${cap / 1000} s` : v >= 10_000 ? `${round(v / 1000)} s` : `${Math.round(v)} ms`);

/** One line per window whose fast deliveries waited: where their path to the send took the time (from their workflow histories). */
function whereWaitedLines(windows: Window[], grace: number): string[] {
  const lines = windows.flatMap((w) => {
    const x = (w.slot_wait as Partial<Window['slot_wait']>).where_waited;
    if (!x || x.deliveries === 0) return [];
    const p = (s: { p50_ms: number | null; max_ms: number | null }) => `${ms(s.p50_ms, grace)} / ${ms(s.max_ms, grace)}`;
    return [
      `- ${w.key}: ${x.deliveries} waited; delivery created → workflow started ${p(x.created_to_workflow_started_ms)}, → first workflow task ${p(x.workflow_started_to_first_task_ms)}, → send ${p(x.first_task_to_send_ms)} (p50 / max); ${x.slept_on_a_timer_before_sending} slept on a workflow timer (throttled or deferred) before sending.`,
    ];
  });
  return lines.length ? ['Where the fast deliveries that waited spent it (their workflow histories):', '', ...lines, ''] : [];
}

function writeDocSection(r: { date: string; machine: { cpus: number; node: string }; load_average_1m_at_start: number; options: Partial<Options>; windows: Window[]; met: boolean }): void {
  const grace = (r.options.grace ?? 30) * 1000;
  const tables = [
    `Measured ${r.date.slice(0, 10)}; target ${r.met ? '**met**' : '**not met**'}.`,
    '',
    `${r.machine.cpus} cores, Node ${r.machine.node}, 1-minute load average ${r.load_average_1m_at_start} at the start (other engineers' work shares the machine); ${r.options.seconds} fast events per window at 1/s, grace ${r.options.grace} s.`,
    '',
    '| window | fast p50 | fast p99 | delivered / accepted | load (1 min) | target met |',
    '|---|---|---|---|---|---|',
    ...r.windows.map((w) => {
      const f = w.fast_tenant;
      return `| ${w.name} | ${ms(f.p50_ms, grace)} | **${ms(f.p99_ms, grace)}** | ${f.delivered} / ${f.accepted} | ${w.load_average_1m} | ${w.key === 'baseline' ? '–' : w.met ? 'yes' : 'no'} |`;
    }),
    '',
    '| window | fast max | waited for capacity (event→delivery p99, delivery→send p99) | noise deliveries at window end |',
    '|---|---|---|---|',
    ...r.windows.map((w) => {
      const s = w.slot_wait;
      const noise = w.noise ? Object.entries((w.noise.deliveries_by_status_at_window_end as Record<string, number>) ?? {}).map(([k, v]) => `${k} ${v}`).join(', ') || 'none' : '–';
      return `| ${w.key} | ${ms(w.fast_tenant.max_ms, grace)} | ${s.waited} (${ms(s.event_to_delivery_ms.p99_ms, grace)}, ${ms(s.delivery_to_send_ms.p99_ms, grace)}) | ${noise} |`;
    }),
    '',
    ...whereWaitedLines(r.windows, grace),
  ];
  const section = [
    '## Delivery isolation (`npm run bench:isolation`)',
    '',
    "One run starts `relay api` and `relay worker` as separate processes on a private PostgreSQL and Temporal dev server. A fast tenant (its own organization, endpoint and webhook destination to a fast local receiver) sends one signed event per second; its latency is ingress 202 → arrival at its receiver. It is measured at baseline and then beside each noise from another organization, one after another, each noise in its own project: (a)–(d) sent as signed requests to ingress, 16 at a time, from the start of the window; (e) committed into the outbox at once, as ingress commits events. Each noise is cleaned up before the next (destination deactivated, open deliveries canceled and their workflows terminated, held requests answered, the simulated CLI disconnected; then probes wait until the fast tenant is fast again). A fast event not delivered within the grace after the window's last event counts as undelivered (shown as \"> grace\"). \"Waited for capacity\" counts fast deliveries whose rows show more than the threshold (default 250 ms) between the event's and the delivery's creation (the dispatcher's window) or between the delivery's creation and its first send (workflow start, task queue, worker slot). Target: under every noise the fast tenant's p99 ≤ 500 ms and no fast delivery waits. Every figure: bench/results/isolation.json.",
    '',
    ...tables,
  ].join('\n');
  writeBenchSection('isolation', section.trimEnd());
}
