import type { Knex } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { AppContainer } from '../app/container';
import { NOTIFY } from '../common/notify-channels';
import { type DeliveryToStart, startDeliveryWorkflow } from '../temporal/delivery-workflows';
import { inEventTrace } from '../telemetry/tracing';
import { fanOutIsolated } from './fan-out';
import { DependencyState } from '../common/backoff';

/**
 * The outbox between ingress and Temporal, and the fair dispatcher
 * (docs/internals/delivery.md "From ingress to a workflow: the outbox" and "Capacity and isolation").
 * Ingress commits events with `dispatched_at = NULL` and a NOTIFY. A pass then:
 * 1. fans out: claims undispatched events in arrival order (`FOR UPDATE SKIP
 *    LOCKED`, so any number of processes can run it), creates their Delivery
 *    rows and sets `dispatched_at`, in ONE statement (src/deliveries/fan-out.ts;
 *    a batch that fails on its data is fanned out event by event);
 * 2. claims deliveries to start FAIRLY: round-robin over destinations, oldest
 *    first within each, at most `perDestinationWindow` started-but-unattempted
 *    deliveries per destination, `perProjectWindow` per project and `maxUnattempted` in all; claiming marks
 *    `workflow_started_at`, in ONE statement. A destination's backlog (slow,
 *    dead, or just large) waits in PostgreSQL, never ahead of anyone else's
 *    deliveries in Temporal's task queue;
 * 3. starts one workflow per claimed delivery (deterministic id, so a second
 *    start is refused); a start that fails is unmarked and claimed again.
 * The sweep re-starts deliveries marked long ago and still unattempted (a crash
 * between claim and start); Temporal refuses the ones whose workflow runs.
 */
export type DispatcherDeps = Pick<AppContainer, 'orm' | 'temporal' | 'config' | 'log' | 'notifications'>;

export interface DispatcherOptions {
  /** Events fanned out, and deliveries claimed, per statement. */
  batchSize?: number;
  /** Fallback poll when a NOTIFY is missed (and the sweep's period). */
  pollIntervalMs?: number;
  /** The sweep re-starts deliveries claimed this long ago and still unattempted. */
  sweepAfterMs?: number;
  /** Concurrent workflow starts per process (a Temporal server flooded with more only answers slower). */
  startConcurrency?: number;
  /** Time limit of one workflow start (Temporal down must not stall the loop). */
  startTimeoutMs?: number;
  /** Started deliveries not yet attempted, across all processes, beyond which none are started (RELAY_DISPATCH_WINDOW). */
  maxUnattempted?: number;
  /** The same, per destination (RELAY_DISPATCH_DESTINATION_WINDOW): the fair share of the window. */
  perDestinationWindow?: number;
  /** The same, per project (RELAY_DISPATCH_PROJECT_WINDOW): a project with many busy destinations cannot fill the window either. */
  perProjectWindow?: number;
  /** RELAY_DESTINATION_MAX_CONCURRENCY: a destination's window is at most its max_concurrency (this when it has none). */
  defaultMaxConcurrency?: number;
}

const uuidArray = (ids: readonly string[]) => `{${ids.join(',')}}`;
const knexOf = (deps: DispatcherDeps): Knex => deps.orm.em.getConnection().getKnex();

/** A started delivery unattempted for longer than this (its workflow lost, its worker gone) no longer holds the window. */
const UNATTEMPTED_WINDOW_SECONDS = 300;

/**
 * Claims up to `batchSize` unstarted deliveries to start, fairly: each
 * destination with unstarted deliveries (found by a skip scan of
 * deliveries_pending_idx) offers its oldest ones (event order), as many as its window has
 * room for (RELAY_DISPATCH_DESTINATION_WINDOW, and at most its max_concurrency: every started
 * workflow can send at once, and none waits for a lease while queued ahead of other destinations'
 * work; bench:isolation's 10,000-event backlog: fast tenant p99 2.4 s at twice, 0.9 s at once. A `cli`
 * destination too: a forward waiting for its CLI's answer holds one of its leases, so a wider
 * window only added deliveries polling "throttled" on the shared worker, 182 attempts in 30 s
 * beside a silent CLI); the picks are interleaved (every destination's first, then every
 * second…), each project keeps to its own window (so many busy destinations of
 * one project cannot fill the global one), and the lot is cut at the global window's room. Claiming sets
 * `workflow_started_at`. ONE statement. `waiting`: the destinations with unstarted deliveries this claim left (the
 * statement reads the rows as they were before it marked them, so those it picked are left out by id).
 */
export async function claimDeliveriesToStart(
  knex: Knex,
  opts: { batchSize: number; perDestinationWindow: number; perProjectWindow: number; maxUnattempted: number; defaultMaxConcurrency: number },
): Promise<{ deliveries: DeliveryToStart[]; waiting: number }> {
  const { rows } = await knex.raw(
    `with recursive dests as (
       (select destination_id from deliveries where status = 'queued' and workflow_started_at is null order by destination_id limit 1)
       union all
       select (select d.destination_id from deliveries d
                where d.status = 'queued' and d.workflow_started_at is null and d.destination_id > dests.destination_id
                order by d.destination_id limit 1)
         from dests where dests.destination_id is not null
     ), room as (
       select least(?::int, ?::int - (select count(*) from (
         select 1 from deliveries where status = 'queued' and workflow_started_at > now() - make_interval(secs => ${UNATTEMPTED_WINDOW_SECONDS}) limit ?) started))::int as n
     ), offered as (
       select c.id, c.event_id, c.project_id, row_number() over (partition by c.destination_id order by c.event_id) as turn
         from dests
        cross join lateral (
          select least(?::int, (select coalesce(t.max_concurrency, ?::int) from destinations t where t.id = dests.destination_id)) - count(*)::int as free
            from deliveries s
           where s.destination_id = dests.destination_id and s.status = 'queued'
             and s.workflow_started_at > now() - make_interval(secs => ${UNATTEMPTED_WINDOW_SECONDS})) w
        cross join lateral (
          select d.id, d.destination_id, d.event_id, d.project_id from deliveries d
           where d.destination_id = dests.destination_id and d.status = 'queued' and d.workflow_started_at is null
           order by d.event_id limit greatest(w.free, 0) for update skip locked) c
        where dests.destination_id is not null
     ), project_room as (
       select o.project_id, ?::int - (select count(*)::int from deliveries s
          where s.project_id = o.project_id and s.status = 'queued'
            and s.workflow_started_at > now() - make_interval(secs => ${UNATTEMPTED_WINDOW_SECONDS})) as free
         from (select distinct project_id from offered) o
     ), fair as (
       select o.id, o.event_id, o.turn, row_number() over (partition by o.project_id order by o.turn, o.event_id) as project_turn, r.free as project_free
         from offered o join project_room r on r.project_id = o.project_id
     ), picked as (
       select id from fair where project_turn <= project_free order by turn, event_id limit greatest((select n from room), 0)
     ), marked as (
       update deliveries set workflow_started_at = now() from picked where deliveries.id = picked.id
       returning deliveries.id, deliveries.event_id, deliveries.destination_id, deliveries.project_id, deliveries.endpoint_id
     )
     select (select count(*) from dests x
              where x.destination_id is not null
                and exists (select 1 from deliveries d
                             where d.destination_id = x.destination_id and d.status = 'queued' and d.workflow_started_at is null
                               and not exists (select 1 from picked p where p.id = d.id)))::int as waiting,
            s.id, s.event_id, s.destination_id, s.project_id, s.event_type, s.endpoint_slug
       from (select 1) one left join (
         select m.id, m.event_id, m.destination_id, m.project_id, e.event_type, ep.slug as endpoint_slug
           from marked m join events e on e.id = m.event_id join webhook_endpoints ep on ep.id = m.endpoint_id) s on true
      order by s.id`,
    [opts.batchSize, opts.maxUnattempted, opts.maxUnattempted, opts.perDestinationWindow, opts.defaultMaxConcurrency, opts.perProjectWindow],
  );
  return { deliveries: rows.filter((r: { id: string | null }) => r.id).map(toDeliveryToStart), waiting: rows[0]?.waiting ?? 0 };
}

/** A row of deliveries joined with its event's type and its endpoint's slug (`id`, `event_id`, …, `endpoint_slug`). */
export function toDeliveryToStart(r: Record<string, string>): DeliveryToStart {
  return {
    deliveryId: r.id,
    eventId: r.event_id,
    destinationId: r.destination_id,
    projectId: r.project_id,
    endpointSlug: r.endpoint_slug,
    eventType: r.event_type,
  };
}

/** Runs `fn` over `items`, at most `limit` at a time. */
async function mapConcurrent<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        results[i] = { status: 'fulfilled', value: await fn(items[i]) };
      } catch (reason) {
        results[i] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Starts the deliveries' workflows. Unclaimed ones (a replay) are marked
 * `workflow_started_at` once started; claimed ones (already marked) whose start
 * failed are unmarked, so the next pass claims them again. Returns the number started.
 */
export async function startDeliveries(
  deps: DispatcherDeps,
  deliveries: readonly DeliveryToStart[],
  opts: { concurrency?: number; timeoutMs?: number; knex?: Knex; eager?: boolean; claimed?: boolean; starts?: DependencyState } = {},
): Promise<number> {
  if (deliveries.length === 0) return 0;
  const startOpts = { taskQueue: deps.config.TEMPORAL_TASK_QUEUE, attemptTimeoutMs: deps.config.RELAY_DELIVERY_TIMEOUT_MS, eager: opts.eager };
  const timeoutMs = opts.timeoutMs ?? 5000;
  const results = await mapConcurrent(deliveries, opts.concurrency ?? 64, (d) =>
    inEventTrace(d.eventId, () => deps.temporal.connection.withDeadline(Date.now() + timeoutMs, () => startDeliveryWorkflow(deps.temporal, startOpts, d))),
  );
  const started = deliveries.filter((_, i) => results[i].status === 'fulfilled').map((d) => d.deliveryId);
  const unstarted = deliveries.filter((_, i) => results[i].status === 'rejected').map((d) => d.deliveryId);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  const message = 'could not start delivery workflows (Temporal unreachable?); they are started again shortly';
  // The dispatcher's loop logs a Temporal outage once (`starts`); a one-off start (a replay) logs each failure.
  if (failed && opts.starts) opts.starts.failed(failed.reason, message);
  else if (failed) deps.log.warn({ err: failed.reason, failed: unstarted.length }, message);
  else if (started.length > 0) opts.starts?.succeeded('delivery workflows start again');
  const knex = opts.knex ?? knexOf(deps);
  if (opts.claimed && unstarted.length > 0) {
    await knex.raw('update deliveries set workflow_started_at = null where id = any(?::uuid[])', [uuidArray(unstarted)]);
  } else if (!opts.claimed && started.length > 0) {
    await knex.raw('update deliveries set workflow_started_at = now() where id = any(?::uuid[])', [uuidArray(started)]);
  }
  return started.length;
}

/**
 * Starts again the deliveries claimed more than `olderThanMs` ago and still
 * unattempted (locked, so each is swept by one process at a time). Most are
 * waiting in their workflow (throttled, deferred) and Temporal refuses the
 * start; one whose process died between claim and start gets its workflow.
 */
export async function sweepUnstarted(
  deps: DispatcherDeps,
  opts: { olderThanMs: number; batchSize: number; concurrency?: number; timeoutMs?: number; eager?: boolean; starts?: DependencyState },
): Promise<number> {
  return knexOf(deps).transaction(async (trx) => {
    const { rows } = await trx.raw(
      `with claimed as (
         select id from deliveries
          where status = 'queued' and workflow_started_at < now() - make_interval(secs => ?)
          order by id limit ? for update skip locked
       ), marked as (
         update deliveries set workflow_started_at = now() from claimed where deliveries.id = claimed.id
         returning deliveries.id, deliveries.event_id, deliveries.destination_id, deliveries.project_id, deliveries.endpoint_id
       )
       select m.id, m.event_id, m.destination_id, m.project_id, e.event_type, ep.slug as endpoint_slug
         from marked m join events e on e.id = m.event_id join webhook_endpoints ep on ep.id = m.endpoint_id`,
      [opts.olderThanMs / 1000, opts.batchSize],
    );
    return startDeliveries(deps, rows.map(toDeliveryToStart), { ...opts, knex: trx, claimed: true });
  });
}

export class DeliveryDispatcher {
  private readonly opts: Required<DispatcherOptions>;
  private stopListening: (() => void) | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private lastSweep = 0;
  private readonly inFlight = new Set<Promise<unknown>>();
  private windowTimer: NodeJS.Timeout | null = null;
  private eager = false;
  private readonly passes: DependencyState;
  private readonly starts: DependencyState;

  constructor(
    private deps: DispatcherDeps,
    opts: DispatcherOptions = {},
  ) {
    this.passes = new DependencyState(deps.log);
    this.starts = new DependencyState(deps.log);
    this.opts = {
      batchSize: opts.batchSize ?? 500,
      pollIntervalMs: opts.pollIntervalMs ?? 1000,
      sweepAfterMs: opts.sweepAfterMs ?? 60_000,
      startConcurrency: opts.startConcurrency ?? 64,
      startTimeoutMs: opts.startTimeoutMs ?? 5000,
      maxUnattempted: opts.maxUnattempted ?? deps.config.RELAY_DISPATCH_WINDOW,
      perDestinationWindow: opts.perDestinationWindow ?? deps.config.RELAY_DISPATCH_DESTINATION_WINDOW,
      perProjectWindow: opts.perProjectWindow ?? deps.config.RELAY_DISPATCH_PROJECT_WINDOW,
      defaultMaxConcurrency: opts.defaultMaxConcurrency ?? deps.config.RELAY_DESTINATION_MAX_CONCURRENCY,
    };
  }

  async start(): Promise<void> {
    // A notification or a reconnection (notifications may have been missed) triggers a pass; the poll covers the rest.
    this.stopListening = await this.deps.notifications.listen({
      channel: NOTIFY.eventsCommitted,
      onNotify: () => this.kick(),
      onConnect: () => this.kick(),
    });
    this.pollTimer = setInterval(() => this.kick(), this.opts.pollIntervalMs);
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.windowTimer) clearTimeout(this.windowTimer);
    this.stopListening?.();
    await this.running;
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Once this process's worker runs: start workflows through a client on the
   * worker's NativeConnection with eager start, so each delivery's first
   * workflow task goes straight to this worker.
   */
  useEagerStart(workerClient: Client): void {
    this.deps = { ...this.deps, temporal: workerClient };
    this.eager = true;
  }

  /** Runs a dispatch pass now, or right after the one in progress. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
    });
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.pass();
        this.passes.succeeded('delivery dispatch runs again');
      } catch (err) {
        // PostgreSQL away fails every poll: one line when it starts, one when it ends.
        this.passes.failed(err, 'delivery dispatch failed (database unreachable?); retrying on every poll');
        return;
      }
    } while (this.again && !this.stopped);
  }

  /**
   * Fans out pending events and claims deliveries to start, in turns: a claim
   * follows each fan-out batch, so deliveries fanned out first are started while
   * a large backlog is still being fanned out. Starts run in the background, one batch at a time.
   */
  private async pass(): Promise<void> {
    const knex = knexOf(this.deps);
    for (;;) {
      const events = await fanOutIsolated(knex, this.opts.batchSize, this.deps.log);
      const claimed = await this.claimAndStart(knex);
      if (this.stopped || (events < this.opts.batchSize && claimed < this.opts.batchSize)) break;
    }
    if (Date.now() - this.lastSweep >= this.opts.pollIntervalMs) {
      this.lastSweep = Date.now();
      await sweepUnstarted(this.deps, {
        olderThanMs: this.opts.sweepAfterMs,
        batchSize: this.opts.batchSize,
        concurrency: this.opts.startConcurrency,
        timeoutMs: this.opts.startTimeoutMs,
        eager: this.eager,
        starts: this.starts,
      });
    }
  }

  /** Claims one batch of deliveries fairly and starts them in the background; returns how many were claimed. */
  private async claimAndStart(knex: Knex): Promise<number> {
    // One batch of starts at a time (each `startConcurrency` wide): the window counts claimed deliveries already.
    while (this.inFlight.size >= 1) await Promise.race(this.inFlight);
    const { deliveries, waiting } = await claimDeliveriesToStart(knex, this.opts);
    if (deliveries.length > 0) {
      const task = startDeliveries(this.deps, deliveries, {
        concurrency: this.opts.startConcurrency,
        timeoutMs: this.opts.startTimeoutMs,
        eager: this.eager,
        claimed: true,
        starts: this.starts,
      })
        .catch((err) => this.deps.log.warn({ err }, 'unmarking unstarted deliveries failed; the sweep starts them'))
        .finally(() => this.inFlight.delete(task));
      this.inFlight.add(task);
    }
    // Deliveries left waiting for a window (theirs or the global one) are looked at again shortly: attempts free windows without a notification.
    if (deliveries.length < this.opts.batchSize && waiting > 0) {
      this.windowTimer ??= setTimeout(() => {
        this.windowTimer = null;
        this.kick();
      }, 100);
    }
    return deliveries.length;
  }
}
