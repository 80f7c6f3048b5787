import type { Knex } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { uuidv7LowerBound } from '../common/ids';
import type { ProjectContext } from '../common/request-context';
import { countDeadLetters } from '../deliveries/delivery-operations.service';
import { Destination } from '../destinations/destination.entity';
import { findEndpoint } from '../endpoints/endpoint.service';
import { METRICS_RANGES, metricsWindow, type MetricsWindow } from './metrics-window';
import type { DestinationLatencyView, MetricsBucketView, ProjectMetricsView } from './project-metrics.view';

/**
 * Project metrics for the dashboard: per-bucket counts of events and attempt
 * outcomes, totals with the success rate, p50/p95 attempt latency per
 * destination and the dead-letter queue size, for the project or one of its
 * endpoints. Aggregate SQL over the stored rows (not the process-local
 * Prometheus counters of src/metrics/, which reset on restart and know no
 * project). Every scan is bounded on a `(scope, id)` index: ids are UUIDv7, so
 * the window's start is also a lower bound on `id`, and `created_at` confirms it.
 */

export const projectMetricsQuery = z.object({
  range: z.enum(METRICS_RANGES).default('hour').describe('hour: 60 one-minute buckets; day: 96 of 15 minutes; week: 168 hourly'),
  endpoint_id: z.uuid({ message: 'must be a UUID' }).optional().describe('Only this endpoint’s events and deliveries'),
});
export type ProjectMetricsQuery = z.infer<typeof projectMetricsQuery>;

type Counts = Omit<MetricsBucketView, 'start'>;
const ZERO: Counts = { events_received: 0, events_filtered: 0, deliveries_succeeded: 0, deliveries_failed: 0, deliveries_retrying: 0 };

interface Scope {
  knex: Knex;
  projectId: string;
  endpointId: string | null;
  /** The project's destinations, as constants: the planner then estimates their attempts from the column statistics (through a join it averages over every project's destinations and may scan all attempts of the window). */
  destinationIds: string[];
  window: MetricsWindow;
}

/** `[interval, lower id bound, from, to]`: the bindings every windowed query starts with. */
const windowBindings = (w: MetricsWindow): [string, string, Date, Date] => [`${w.bucketSeconds} seconds`, uuidv7LowerBound(w.from.getTime()), w.from, w.to];

async function eventCounts({ knex, projectId, endpointId, window }: Scope): Promise<Array<{ bucket: Date; received: number; filtered: number }>> {
  const [interval, lowerId, from, to] = windowBindings(window);
  // The endpoint's own (endpoint_id, id) index when one is asked for, else the project's.
  const scope = endpointId ? 'endpoint_id = ? and project_id = ?' : 'project_id = ?';
  const { rows } = await knex.raw(
    `select date_bin(?::interval, created_at, timestamptz 'epoch') as bucket,
            count(*)::int as received, (count(*) filter (where status = 'filtered'))::int as filtered
       from events
      where ${scope} and id >= ?::uuid and created_at >= ? and created_at < ?
      group by 1`,
    [interval, ...(endpointId ? [endpointId, projectId] : [projectId]), lowerId, from, to],
  );
  return rows;
}

/** Attempts in the window, on the (destination_id, id) index of the project's destinations; an endpoint narrows by its deliveries. */
function attemptsFrom({ endpointId, destinationIds, window }: Scope): { sql: string; bindings: Array<string | Date> } {
  const [, lowerId, from, to] = windowBindings(window);
  return {
    sql: `delivery_attempts a
      ${endpointId ? 'join deliveries d on d.id = a.delivery_id and d.endpoint_id = ?' : ''}
     where a.destination_id = any(?::uuid[]) and a.id >= ?::uuid and a.created_at >= ? and a.created_at < ?`,
    bindings: [...(endpointId ? [endpointId] : []), `{${destinationIds.join(',')}}`, lowerId, from, to],
  };
}

async function attemptCounts(scope: Scope): Promise<Array<{ bucket: Date; succeeded: number; failed: number; retrying: number }>> {
  if (!scope.destinationIds.length) return [];
  const attempts = attemptsFrom(scope);
  const { rows } = await scope.knex.raw(
    `select date_bin(?::interval, a.created_at, timestamptz 'epoch') as bucket,
            (count(*) filter (where a.status = 'success'))::int as succeeded,
            (count(*) filter (where a.status = 'failed'))::int as failed,
            (count(*) filter (where a.status = 'retrying'))::int as retrying
       from ${attempts.sql}
      group by 1`,
    [windowBindings(scope.window)[0], ...attempts.bindings],
  );
  return rows;
}

async function latencies(scope: Scope): Promise<DestinationLatencyView[]> {
  if (!scope.destinationIds.length) return [];
  const attempts = attemptsFrom(scope);
  const { rows } = await scope.knex.raw(
    `select l.destination_id, dst.name as destination_name, l.attempts, l.p50_ms, l.p95_ms
       from (select a.destination_id, count(*)::int as attempts,
                    percentile_cont(0.5) within group (order by a.latency_ms) as p50_ms,
                    percentile_cont(0.95) within group (order by a.latency_ms) as p95_ms
               from ${attempts.sql} and a.latency_ms is not null
              group by a.destination_id) l
       join destinations dst on dst.id = l.destination_id
      order by dst.name, l.destination_id`,
    attempts.bindings,
  );
  return rows.map((r: DestinationLatencyView) => ({ ...r, p50_ms: Number(r.p50_ms), p95_ms: Number(r.p95_ms) }));
}

export async function getProjectMetrics(ctx: ProjectContext, query: ProjectMetricsQuery, now = new Date()): Promise<ProjectMetricsView> {
  const endpointId = query.endpoint_id ? (await findEndpoint(ctx, query.endpoint_id)).id : null;
  const window = metricsWindow(query.range, now);
  const knex = ctx.em.getConnection().getKnex();
  const destinations = await ctx.em.find(Destination, { project: ctx.project.id }, { fields: ['id'] });
  const scope: Scope = { knex, projectId: ctx.project.id, endpointId, destinationIds: destinations.map((d) => d.id), window };
  const [events, attempts, latency, deadLetters] = await Promise.all([
    eventCounts(scope),
    attemptCounts(scope),
    latencies(scope),
    countDeadLetters(ctx, endpointId),
  ]);

  const byStart = new Map<number, Counts>(window.bucketStarts.map((start) => [start, { ...ZERO }]));
  // date_bin and metricsWindow share the epoch origin, so every row lands on a bucket of the window.
  const bucketAt = (bucket: Date) => byStart.get(new Date(bucket).getTime())!;
  for (const r of events) Object.assign(bucketAt(r.bucket), { events_received: r.received, events_filtered: r.filtered });
  for (const r of attempts) Object.assign(bucketAt(r.bucket), { deliveries_succeeded: r.succeeded, deliveries_failed: r.failed, deliveries_retrying: r.retrying });
  const buckets = window.bucketStarts.map((start) => ({ start: new Date(start).toISOString(), ...byStart.get(start)! }));
  const totals = { ...ZERO };
  for (const b of buckets) for (const key of Object.keys(ZERO) as Array<keyof Counts>) totals[key] += b[key];
  const finished = totals.deliveries_succeeded + totals.deliveries_failed;

  return {
    range: query.range,
    endpoint_id: endpointId,
    bucket_seconds: window.bucketSeconds,
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    buckets,
    totals: { ...totals, success_rate: finished ? totals.deliveries_succeeded / finished : null },
    latency,
    dead_letters: deadLetters,
  };
}
