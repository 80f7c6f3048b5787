import { z } from 'zod';
import { METRICS_RANGES } from './metrics-window';

const count = z.number().int().min(0);

export const metricsBucketView = z.object({
  start: z.iso.datetime().describe('Start of the bucket (ISO 8601, UTC); it lasts bucket_seconds'),
  events_received: count.describe('Events that arrived (filtered ones included)'),
  events_filtered: count.describe('Of those, events the endpoint’s filters dropped'),
  deliveries_succeeded: count.describe('Attempts that delivered (each delivery succeeds at most once)'),
  deliveries_failed: count.describe('Attempts that failed for good (the delivery went to the dead-letter queue)'),
  deliveries_retrying: count.describe('Attempts that failed with a retry scheduled'),
});
export type MetricsBucketView = z.infer<typeof metricsBucketView>;

export const destinationLatencyView = z.object({
  destination_id: z.uuid(),
  destination_name: z.string(),
  attempts: count.describe('Attempts with a measured latency in the range'),
  p50_ms: z.number().min(0),
  p95_ms: z.number().min(0),
});
export type DestinationLatencyView = z.infer<typeof destinationLatencyView>;

export const projectMetricsView = z.object({
  range: z.enum(METRICS_RANGES),
  endpoint_id: z.uuid().nullable(),
  bucket_seconds: z.number().int().positive().describe('60 for hour, 900 for day, 3600 for week'),
  from: z.iso.datetime().describe('Inclusive start of the first bucket'),
  to: z.iso.datetime().describe('Exclusive end of the last bucket (the current bucket is still filling)'),
  buckets: z.array(metricsBucketView).describe('Oldest first, every bucket present (zeros included)'),
  totals: metricsBucketView.omit({ start: true }).extend({
    success_rate: z.number().min(0).max(1).nullable().describe('succeeded / (succeeded + failed) over the range; null when nothing finished'),
  }),
  latency: z.array(destinationLatencyView).describe('Per destination, p50/p95 attempt latency over the range, by destination name'),
  dead_letters: count.describe('Deliveries in the dead-letter queue now (not limited to the range)'),
});
export type ProjectMetricsView = z.infer<typeof projectMetricsView>;
