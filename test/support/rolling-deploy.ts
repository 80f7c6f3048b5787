import type { AppContainer } from '../../src/app/container';
import { createScene, sql } from '../delivery/harness';
import { startReceiver } from '../delivery/receiver';
import { startWorkerChild, type WorkerChild } from '../delivery/worker-child';
import { postSigned } from './ingress-helpers';
import { type ServiceProcess, startServiceProcess } from './service-process';
import { uniqueTaskQueue } from './test-env';

/**
 * Issue 20.4's rolling deploy, shared by test/engines/rolling-deploy.test.ts (short)
 * and `npm run bench:rolling` (100 events/s for two minutes): two `relay api` and two
 * `relay worker` processes on one database; signed webhooks at a fixed rate through a
 * load balancer that sends each request to an API process whose `/readyz` answered 200
 * at its last check (every `healthCheckMs`); each of the four processes in turn gets
 * SIGTERM, exits, and is replaced by a new one, while the traffic flows.
 */
export interface RollingOptions {
  container: AppContainer;
  databaseUrl: string;
  /** Webhooks per second, for `seconds` and at least until the last replacement is ready (plus a second). */
  rate: number;
  seconds: number;
  /** The API's RELAY_DRAIN_DELAY_MS: longer than the balancer's health-check period. */
  drainDelayMs: number;
  healthCheckMs: number;
  /** Extra environment of the relay processes (e.g. TEMPORAL_ADDRESS). */
  env?: Record<string, string>;
  log?: (line: string) => void;
  /** How long to wait for every delivery to end once the traffic has stopped. */
  settleTimeoutMs?: number;
}

export interface RollingResult {
  sent: number;
  /** 202 answers: events the relay took responsibility for. */
  acknowledged: number;
  /** Acknowledged events with no stored row, or whose delivery ended other than in success. */
  lost: number;
  /** Acknowledged events whose delivery was not terminal yet when the run stopped waiting (still queued: not lost). */
  notTerminal: number;
  /** Whether every delivery was terminal before `settleTimeoutMs` (else `deliveredWithinMs` is when the run gave up). */
  settled: boolean;
  statuses: Record<string, number>;
  /** 5xx answers, from any process, and from processes that had begun draining. */
  answers5xx: number;
  answers5xxWhileDraining: number;
  /** Requests answered by a process after it got SIGTERM (the drain window, served normally). */
  servedWhileDraining: number;
  /** Requests that got no HTTP answer (connection refused or reset): not acknowledged, a client retries them. */
  connectionErrors: number;
  /** Answers other than 202 and 5xx, by status (e.g. 429 when the rate passes the plan's ingress cap). */
  otherAnswers: Record<string, number>;
  /** Requests the receiver got beyond one per acknowledged event, and why. */
  duplicates: number;
  duplicatesExplained: string[];
  restarts: Array<{ process: string; exitCode: number | null; stopMs: number; replacementReadyMs: number }>;
  /** How long the traffic ran: `seconds`, or longer when the four restarts took longer. */
  trafficMs: number;
  /** Deliveries not yet terminal when the traffic stopped (the backlog left to drain). */
  backlogAtTrafficEnd: number;
  deliveredWithinMs: number;
}

interface ApiSlot {
  name: string;
  service: ServiceProcess;
  inRotation: boolean;
  draining: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runRollingDeploy(opts: RollingOptions): Promise<RollingResult> {
  const log = opts.log ?? (() => undefined);
  const taskQueue = uniqueTaskQueue('rolling');
  const env = { RELAY_DRAIN_DELAY_MS: String(opts.drainDelayMs), ...opts.env };
  const receiver = await startReceiver();
  const scene = await createScene(opts.container);
  // The Growth plan: its ingress cap (600/s per endpoint) is above any rate run here; Free's 60/s would answer 429 above it.
  await sql(opts.container, `update organizations set plan = 'growth' where id = ?`, [scene.organization.id]);
  await scene.destination(`${receiver.url}/hook`);

  const startApi = async (name: string): Promise<ApiSlot> => ({
    name,
    service: await startServiceProcess({ databaseUrl: opts.databaseUrl, command: 'api', taskQueue, env }),
    inRotation: true,
    draining: false,
  });
  const startWorker = () =>
    startWorkerChild({ databaseUrl: opts.databaseUrl, taskQueue, temporalAddress: opts.env?.TEMPORAL_ADDRESS, env });
  const apis: ApiSlot[] = await Promise.all([startApi('api-1'), startApi('api-2')]);
  const workers: WorkerChild[] = await Promise.all([startWorker(), startWorker()]);

  // The load balancer's health checks.
  let checking = true;
  const healthLoop = (async () => {
    while (checking) {
      await Promise.all(
        apis.map(async (slot) => {
          try {
            const res = await fetch(`${slot.service.baseUrl}/readyz`, { signal: AbortSignal.timeout(opts.healthCheckMs * 5) });
            await res.arrayBuffer();
            slot.inRotation = res.status === 200;
          } catch {
            slot.inRotation = false;
          }
        }),
      );
      await sleep(opts.healthCheckMs);
    }
  })();

  const result: RollingResult = {
    sent: 0,
    acknowledged: 0,
    lost: 0,
    notTerminal: 0,
    settled: false,
    statuses: {},
    answers5xx: 0,
    answers5xxWhileDraining: 0,
    servedWhileDraining: 0,
    connectionErrors: 0,
    otherAnswers: {},
    duplicates: 0,
    duplicatesExplained: [],
    restarts: [],
    trafficMs: 0,
    backlogAtTrafficEnd: 0,
    deliveredWithinMs: 0,
  };
  const acknowledged = new Map<number, string>();
  const inFlight = new Set<Promise<void>>();
  let next = 0;
  const send = (seq: number) => {
    const candidates = apis.filter((s) => s.inRotation);
    const slot = candidates[seq % Math.max(1, candidates.length)] ?? apis[0];
    const draining = slot.draining;
    result.sent += 1;
    const p = postSigned(slot.service.baseUrl, scene.endpoint.slug, scene.signingSecret, { seq })
      .then((res) => {
        if (draining || slot.draining) result.servedWhileDraining += 1;
        if (res.status >= 500) {
          result.answers5xx += 1;
          if (draining || slot.draining) result.answers5xxWhileDraining += 1;
          log(`5xx from ${slot.name}${slot.draining ? ' (draining)' : ''}: ${res.status} ${JSON.stringify(res.body)}`);
        }
        if (res.status === 202 && res.body.event_id) acknowledged.set(seq, res.body.event_id);
        else if (res.status < 500) result.otherAnswers[res.status] = (result.otherAnswers[res.status] ?? 0) + 1;
      })
      .catch((err: Error) => {
        result.connectionErrors += 1;
        log(`no answer from ${slot.name}${slot.draining ? ' (draining)' : ''}: ${(err.cause as Error)?.message ?? err.message}`);
      })
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };

  // The traffic: `rate` requests per second, paced against the clock.
  const t0 = performance.now();
  const total = Math.round(opts.rate * opts.seconds);
  let rolled = false;
  const traffic = (async () => {
    while (next < total || !rolled) {
      const due = t0 + (next * 1000) / opts.rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      send(next);
      next += 1;
    }
  })();

  // The rolling deploy: each process in turn, SIGTERM, exit, replacement ready.
  await sleep(Math.min(3000, (opts.seconds * 1000) / 10));
  const stepPause = Math.min(5000, Math.max(1000, (opts.seconds * 1000) / 8));
  for (const i of [0, 1]) {
    const slot = apis[i];
    const t = performance.now();
    slot.draining = true;
    log(`SIGTERM ${slot.name}`);
    slot.service.child.kill('SIGTERM');
    const exitCode = await new Promise<number | null>((resolve) =>
      slot.service.child.exitCode !== null ? resolve(slot.service.child.exitCode) : slot.service.child.once('exit', (code) => resolve(code)),
    );
    const stopMs = performance.now() - t;
    await slot.service.stop();
    const replacement = await startApi(`${slot.name}'`);
    apis[i] = replacement;
    result.restarts.push({ process: slot.name, exitCode, stopMs: Math.round(stopMs), replacementReadyMs: Math.round(performance.now() - t) });
    await sleep(stepPause);
  }
  for (const i of [0, 1]) {
    const t = performance.now();
    log(`SIGTERM worker-${i + 1}`);
    const old = workers[i];
    const exited = new Promise<number | null>((resolve) => old.child.once('exit', (code) => resolve(code)));
    await old.kill('SIGTERM');
    const exitCode = old.child.exitCode ?? (await exited);
    const stopMs = performance.now() - t;
    workers[i] = await startWorker();
    result.restarts.push({ process: `worker-${i + 1}`, exitCode, stopMs: Math.round(stopMs), replacementReadyMs: Math.round(performance.now() - t) });
    await sleep(stepPause);
  }
  await sleep(1000);
  rolled = true;
  await traffic;
  await Promise.all([...inFlight]);
  const trafficEnd = performance.now();
  result.trafficMs = Math.round(trafficEnd - t0);

  // Every acknowledged event: stored, and its one delivery terminal.
  result.acknowledged = acknowledged.size;
  const ids = [...acknowledged.values()];
  const settleBy = Date.now() + (opts.settleTimeoutMs ?? 120_000);
  let rows: Array<{ event_id: string; status: string | null }> = [];
  let firstCheck = true;
  for (;;) {
    rows = await sql<{ event_id: string; status: string | null }>(
      opts.container,
      `select e.id as event_id, d.status from events e left join deliveries d on d.event_id = e.id where e.id = any(?::uuid[])`,
      [ids],
    );
    const open = rows.filter((r) => !r.status || r.status === 'queued' || r.status === 'retrying').length;
    if (firstCheck) {
      firstCheck = false;
      result.backlogAtTrafficEnd = open + Math.max(0, ids.length - rows.length);
      log(`traffic ended after ${(result.trafficMs / 1000).toFixed(1)} s; ${result.backlogAtTrafficEnd} of ${ids.length} acknowledged events not yet delivered`);
    }
    if ((open === 0 && rows.length >= ids.length) || Date.now() > settleBy) break;
    await sleep(250);
  }
  result.deliveredWithinMs = Math.round(performance.now() - trafficEnd);
  for (const r of rows) result.statuses[r.status ?? 'no delivery'] = (result.statuses[r.status ?? 'no delivery'] ?? 0) + 1;
  const open = new Set(rows.filter((r) => !r.status || r.status === 'queued' || r.status === 'retrying').map((r) => r.event_id));
  result.notTerminal = open.size;
  result.settled = open.size === 0 && rows.length >= ids.length;
  const succeeded = new Set(rows.filter((r) => r.status === 'success').map((r) => r.event_id));
  result.lost = ids.filter((id) => !succeeded.has(id) && !open.has(id)).length;

  // Duplicates at the receiver, and where each came from (the attempts recorded for its delivery).
  const bySeq = new Map<number, number>();
  for (const r of receiver.requests) {
    const seq = (JSON.parse(r.body) as { seq: number }).seq;
    bySeq.set(seq, (bySeq.get(seq) ?? 0) + 1);
  }
  for (const [seq, n] of bySeq) {
    if (n <= 1) continue;
    result.duplicates += n - 1;
    const eventId = acknowledged.get(seq);
    const attempts = eventId
      ? await sql<{ attempt_number: number; status: string; error: string | null }>(
          opts.container,
          `select a.attempt_number, a.status, a.error from delivery_attempts a join deliveries d on d.id = a.delivery_id where d.event_id = ? order by a.attempt_number`,
          [eventId],
        )
      : [];
    result.duplicatesExplained.push(`seq ${seq}: received ${n}×, attempts ${JSON.stringify(attempts)}`);
  }

  checking = false;
  await healthLoop;
  await Promise.all([...apis.map((s) => s.service.stop()), ...workers.map((w) => w.kill('SIGTERM'))]);
  await receiver.close();
  return result;
}
