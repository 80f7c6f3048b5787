/**
 * The time window behind project metrics: a range is a fixed number of
 * equal buckets ending with the bucket that holds `now` (so the newest,
 * still-filling bucket is on the chart). Buckets are aligned to the Unix
 * epoch, the same origin the SQL `date_bin(..., timestamptz 'epoch')` uses,
 * so JavaScript and PostgreSQL agree on every bucket start.
 */
export const METRICS_RANGES = ['hour', 'day', 'week'] as const;
export type MetricsRange = (typeof METRICS_RANGES)[number];

/** hour: 60 × 1 min; day: 96 × 15 min; week: 168 × 1 h. */
export const RANGE_BUCKETS: Record<MetricsRange, { bucketSeconds: number; count: number }> = {
  hour: { bucketSeconds: 60, count: 60 },
  day: { bucketSeconds: 15 * 60, count: 96 },
  week: { bucketSeconds: 60 * 60, count: 168 },
};

export interface MetricsWindow {
  bucketSeconds: number;
  /** Inclusive start of the first bucket. */
  from: Date;
  /** Exclusive end of the last bucket. */
  to: Date;
  /** Start of each bucket, oldest first, in epoch milliseconds. */
  bucketStarts: number[];
}

export function metricsWindow(range: MetricsRange, now: Date): MetricsWindow {
  const { bucketSeconds, count } = RANGE_BUCKETS[range];
  const width = bucketSeconds * 1000;
  const to = (Math.floor(now.getTime() / width) + 1) * width;
  const from = to - count * width;
  const bucketStarts = Array.from({ length: count }, (_, i) => from + i * width);
  return { bucketSeconds, from: new Date(from), to: new Date(to), bucketStarts };
}
