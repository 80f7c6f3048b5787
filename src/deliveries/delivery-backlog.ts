import type { Knex } from '@mikro-orm/postgresql';
import { Gauge } from 'prom-client';
import { metricsRegistry } from '../metrics/metrics';

export interface DeliveryBacklog {
  /** Events committed by ingress that the outbox dispatcher has not fanned out yet (filtered ones too: they get their search row there). */
  outboxDepth: number;
  /** Deliveries created whose first attempt is not recorded yet (workflow not started, or started and waiting for a worker). */
  queuedDeliveries: number;
  /** Age of the oldest event not yet attempted (either of the above), 0 when there is none. */
  oldestUndeliveredSeconds: number;
  /** Deliveries in the dead-letter queue (failed, not replayed). */
  deadLetters: number;
  /** Destinations whose circuit breaker is open or half-open (attempts deferred). */
  openCircuits: number;
}

/**
 * One query, all on partial indexes: the counts scan only the backlog itself
 * (events_undispatched_idx, deliveries_queued_idx) and the oldest entries are
 * the first in id order (UUIDv7 ids are time-ordered).
 */
export async function readDeliveryBacklog(knex: Knex): Promise<DeliveryBacklog> {
  const { rows } = await knex.raw(
    `select (select count(*) from events where dispatched_at is null)::int as outbox_depth,
            (select count(*) from deliveries where status = 'queued')::int as queued_deliveries,
            (select count(*) from deliveries d where dead_lettered_at is not null
                and not exists (select 1 from deliveries r where r.replay_of_id = d.id))::int as dead_letters,
            (select count(*) from destination_circuits where state <> 'closed')::int as open_circuits,
            extract(epoch from now() - least(
              (select created_at from events where dispatched_at is null and status = 'received' order by id limit 1),
              (select e.created_at from deliveries d join events e on e.id = d.event_id where d.status = 'queued' order by d.id limit 1)
            ))::float8 as oldest_seconds`,
  );
  const r = rows[0];
  return {
    outboxDepth: r.outbox_depth,
    queuedDeliveries: r.queued_deliveries,
    oldestUndeliveredSeconds: Math.max(0, r.oldest_seconds ?? 0),
    deadLetters: r.dead_letters,
    openCircuits: r.open_circuits,
  };
}

/** Scrapes within this window share one query (several Prometheus servers, or a short scrape interval, cost one). */
const CACHE_MS = 5000;
let source: { knex: () => Knex; cached?: { at: number; value: Promise<DeliveryBacklog> } } | null = null;

async function current(): Promise<DeliveryBacklog | null> {
  if (!source) return null;
  const now = Date.now();
  if (!source.cached || now - source.cached.at >= CACHE_MS) {
    const value = readDeliveryBacklog(source.knex());
    source.cached = { at: now, value };
    // A failed read is not cached: the next scrape tries again.
    value.catch(() => source && source.cached?.value === value && (source.cached = undefined));
  }
  return source.cached.value;
}

function backlogGauge(name: string, help: string, pick: (b: DeliveryBacklog) => number): Gauge {
  return new Gauge({
    name,
    help,
    registers: [metricsRegistry],
    async collect() {
      // PostgreSQL away: the last value stays (a 0 would resolve alerts), and the rest of /metrics is still served,
      // relay_ready among it (a failed collect would fail the whole scrape).
      const backlog = await current()?.catch(() => null);
      if (backlog) this.set(pick(backlog));
    },
  });
}

backlogGauge('relay_outbox_depth', 'Events accepted by ingress and not yet fanned out into deliveries.', (b) => b.outboxDepth);
backlogGauge('relay_deliveries_queued', 'Deliveries whose first attempt has not been recorded yet.', (b) => b.queuedDeliveries);
backlogGauge('relay_outbox_oldest_undelivered_seconds', 'Age of the oldest accepted event not yet attempted (0 when none).', (b) => b.oldestUndeliveredSeconds);
backlogGauge('relay_delivery_dead_letters', 'Deliveries in the dead-letter queue (failed, not replayed).', (b) => b.deadLetters);
backlogGauge('relay_destination_circuits_open', 'Destinations whose circuit breaker is open or half-open: their attempts are deferred.', (b) => b.openCircuits);

/** Makes `/metrics` of this process report the backlog gauges (read from PostgreSQL, cached 5 s); idempotent. */
export function trackDeliveryBacklog(knex: () => Knex): void {
  source = { knex };
}
