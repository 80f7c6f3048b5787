import type { Knex } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { AppContainer } from '../app/container';
import { NOTIFY } from '../common/notify-channels';
import { type DeliveryToStart, startDeliveryWorkflow } from '../temporal/delivery-workflows';
import { inEventTrace } from '../telemetry/tracing';

/**
 * The outbox between ingress and Temporal. Ingress commits events with
 * `dispatched_at = NULL` and a NOTIFY; the dispatcher then, in ONE transaction,
 * claims them (`FOR UPDATE SKIP LOCKED`, so any number of processes can run it),
 * creates their Delivery rows and sets `dispatched_at`. After the commit it
 * starts one workflow per delivery (deterministic id, so a second start is
 * refused) and sets `workflow_started_at`. Deliveries whose start failed
 * (Temporal down, a crash in between) are picked up again by the sweep.
 */
export type DispatcherDeps = Pick<AppContainer, 'orm' | 'temporal' | 'config' | 'log' | 'notifications'>;

export interface DispatcherOptions {
  /** Events claimed per transaction. */
  batchSize?: number;
  /** Fallback poll when a NOTIFY is missed (and the sweep's period). */
  pollIntervalMs?: number;
  /** The sweep restarts deliveries left unstarted for this long (fresh ones are being started by their dispatcher). */
  sweepAfterMs?: number;
  /** Concurrent workflow starts per process (a Temporal server flooded with more only answers slower). */
  startConcurrency?: number;
  /** Time limit of one workflow start (Temporal down must not stall the loop). */
  startTimeoutMs?: number;
  /**
   * Started deliveries not yet attempted, across all processes, beyond which no
   * more events are claimed: a backlog then waits in the outbox, in arrival
   * order and out of every process's memory, instead of in Temporal's task queue.
   */
  maxUnattempted?: number;
}

const uuidArray = (ids: readonly string[]) => `{${ids.join(',')}}`;
const knexOf = (deps: DispatcherDeps): Knex => deps.orm.em.getConnection().getKnex();

/** A UUIDv7 computed by PostgreSQL (16+ has no uuidv7()): 48-bit millisecond time, version and variant bits, random rest. */
const SQL_UUIDV7 = `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing
  substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`;

/** A started delivery unattempted for longer than this (its workflow lost, its worker gone) no longer holds the window. */
const UNATTEMPTED_WINDOW_SECONDS = 300;

/** Deliveries whose workflow started recently and whose first attempt is not recorded, up to `limit ?` of them (deliveries_queued_idx). */
const UNATTEMPTED_SQL = `select count(*)::int from (
  select 1 from deliveries where status = 'queued' and workflow_started_at > now() - make_interval(secs => ${UNATTEMPTED_WINDOW_SECONDS}) limit ?) started`;

/**
 * Claims up to `batchSize` undispatched events and creates one delivery per
 * linked, active destination whose `event_types` is empty or holds the
 * event's type (blocked destinations leave no record), marking the events
 * dispatched: ONE statement, so one round trip and one atomic commit.
 * With `maxUnattempted`, it claims no more than leaves at most that many
 * started-but-unattempted deliveries (countUnattempted, in the same statement).
 * Returns the new deliveries, how many events were claimed and the claim's limit (`room`, ≤ 0 when the window is full).
 */
export async function fanOutEvents(knex: Knex, batchSize: number, maxUnattempted?: number): Promise<{ events: number; room: number; deliveries: DeliveryToStart[] }> {
  const window = maxUnattempted === undefined ? null : Math.floor(maxUnattempted);
  const room = window === null ? '?::int' : `least(?::int, ?::int - (${UNATTEMPTED_SQL}))`;
  const { rows } = await knex.raw(
    `with room as (
       select ${room} as n
     ), claimed as (
       select id, endpoint_id, project_id, event_type from events
        where dispatched_at is null and status = 'received'
        order by id limit greatest((select n from room), 0) for update skip locked
     ), marked as (
       update events set dispatched_at = now() from claimed where events.id = claimed.id returning events.id
     ), targets as (
       select c.id as event_id, c.endpoint_id, c.project_id, c.event_type, ep.slug as endpoint_slug, t.id as destination_id
         from claimed c
         join webhook_endpoints ep on ep.id = c.endpoint_id
         join endpoint_destinations l on l.endpoint_id = c.endpoint_id
         join destinations t on t.id = l.destination_id and t.is_active
              and (t.event_types = '[]'::jsonb or t.event_types @> to_jsonb(c.event_type))
     ), created as (
       insert into deliveries (id, event_id, destination_id, endpoint_id, project_id)
       select ${SQL_UUIDV7}, event_id, destination_id, endpoint_id, project_id from targets order by event_id, destination_id
       returning id, event_id, destination_id
     )
     select (select n from room) as room, (select count(*) from marked)::int as events, created.id as delivery_id, created.event_id, created.destination_id,
            targets.project_id, targets.endpoint_slug, targets.event_type
       from (select 1) one
       left join created on true
       left join targets on targets.event_id = created.event_id and targets.destination_id = created.destination_id
      order by created.id`,
    window === null ? [batchSize] : [batchSize, window, Math.max(0, window)],
  );
  const deliveries: DeliveryToStart[] = rows
    .filter((r: { delivery_id: string | null }) => r.delivery_id)
    .map((r: Record<string, string>) => ({
      deliveryId: r.delivery_id,
      eventId: r.event_id,
      destinationId: r.destination_id,
      projectId: r.project_id,
      endpointSlug: r.endpoint_slug,
      eventType: r.event_type,
    }));
  return { events: rows[0]?.events ?? 0, room: rows[0]?.room ?? batchSize, deliveries };
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
 * Starts the deliveries' workflows and marks the ones that run (or already
 * ran) with `workflow_started_at`. Returns the number marked; failures stay
 * unmarked for the sweep.
 */
export async function startDeliveries(
  deps: DispatcherDeps,
  deliveries: readonly DeliveryToStart[],
  opts: { concurrency?: number; timeoutMs?: number; knex?: Knex; eager?: boolean } = {},
): Promise<number> {
  if (deliveries.length === 0) return 0;
  const startOpts = { taskQueue: deps.config.TEMPORAL_TASK_QUEUE, attemptTimeoutMs: deps.config.RELAY_DELIVERY_TIMEOUT_MS, eager: opts.eager };
  const timeoutMs = opts.timeoutMs ?? 5000;
  const results = await mapConcurrent(deliveries, opts.concurrency ?? 64, (d) =>
    inEventTrace(d.eventId, () => deps.temporal.connection.withDeadline(Date.now() + timeoutMs, () => startDeliveryWorkflow(deps.temporal, startOpts, d))),
  );
  const started = deliveries.filter((_, i) => results[i].status === 'fulfilled').map((d) => d.deliveryId);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    deps.log.warn({ err: failed.reason, failed: deliveries.length - started.length }, 'could not start delivery workflows; the sweep retries them');
  }
  if (started.length > 0) {
    await (opts.knex ?? knexOf(deps)).raw('update deliveries set workflow_started_at = now() where id = any(?::uuid[])', [uuidArray(started)]);
  }
  return started.length;
}

/** Starts queued deliveries left unstarted for `olderThanMs` (locked, so each is swept by one process at a time). */
export async function sweepUnstarted(
  deps: DispatcherDeps,
  opts: { olderThanMs: number; batchSize: number; concurrency?: number; timeoutMs?: number; eager?: boolean },
): Promise<number> {
  return knexOf(deps).transaction(async (trx) => {
    const { rows } = await trx.raw(
      `with claimed as (
         select id from deliveries
          where workflow_started_at is null and status = 'queued' and created_at < now() - make_interval(secs => ?)
          order by id limit ? for update skip locked)
       select d.id, d.event_id, d.destination_id, d.project_id, e.event_type, ep.slug as endpoint_slug
         from claimed c join deliveries d on d.id = c.id
         join events e on e.id = d.event_id
         join webhook_endpoints ep on ep.id = d.endpoint_id`,
      [opts.olderThanMs / 1000, opts.batchSize],
    );
    const deliveries: DeliveryToStart[] = rows.map((r: Record<string, string>) => ({
      deliveryId: r.id,
      eventId: r.event_id,
      destinationId: r.destination_id,
      projectId: r.project_id,
      endpointSlug: r.endpoint_slug,
      eventType: r.event_type,
    }));
    return startDeliveries(deps, deliveries, { ...opts, knex: trx });
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
  /** Deliveries in the in-flight start batch (not yet marked started, so not yet counted as unattempted). */
  private starting = 0;
  private windowTimer: NodeJS.Timeout | null = null;
  private eager = false;

  constructor(
    private deps: DispatcherDeps,
    opts: DispatcherOptions = {},
  ) {
    this.opts = {
      batchSize: opts.batchSize ?? 500,
      pollIntervalMs: opts.pollIntervalMs ?? 1000,
      sweepAfterMs: opts.sweepAfterMs ?? 5000,
      startConcurrency: opts.startConcurrency ?? 64,
      startTimeoutMs: opts.startTimeoutMs ?? 5000,
      maxUnattempted: opts.maxUnattempted ?? 2000,
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
      } catch (err) {
        this.deps.log.error({ err }, 'delivery dispatch failed; retrying on the next poll');
        return;
      }
    } while (this.again && !this.stopped);
  }

  /** Fans out every pending event; workflow starts run in the background, at most `startConcurrency` at once. */
  private async pass(): Promise<void> {
    const knex = knexOf(this.deps);
    for (;;) {
      // The window check rides in the claim's statement: one round trip per pass, not two.
      const { events, room, deliveries } = await fanOutEvents(knex, this.opts.batchSize, this.opts.maxUnattempted - this.starting);
      if (room <= 0) {
        // The window is full: look again shortly (attempts free it without a notification).
        this.windowTimer ??= setTimeout(() => {
          this.windowTimer = null;
          this.kick();
        }, 100);
        break;
      }
      if (deliveries.length > 0) {
        // One batch of starts at a time (each `startConcurrency` wide) while the next batch is fanned out.
        while (this.inFlight.size >= 1) await Promise.race(this.inFlight);
        this.starting = deliveries.length;
        const task = startDeliveries(this.deps, deliveries, { concurrency: this.opts.startConcurrency, timeoutMs: this.opts.startTimeoutMs, eager: this.eager })
          .catch((err) => this.deps.log.warn({ err }, 'marking started deliveries failed; the sweep retries them'))
          .finally(() => {
            this.starting = 0;
            this.inFlight.delete(task);
          });
        this.inFlight.add(task);
      }
      if (events < room || this.stopped) break;
    }
    if (Date.now() - this.lastSweep >= this.opts.pollIntervalMs) {
      this.lastSweep = Date.now();
      await sweepUnstarted(this.deps, {
        olderThanMs: this.opts.sweepAfterMs,
        batchSize: this.opts.batchSize,
        concurrency: this.opts.startConcurrency,
        timeoutMs: this.opts.startTimeoutMs,
        eager: this.eager,
      });
    }
  }
}
