/**
 * When a source is expected to send (docs/schemas.md "Silence"). The gaps between a source's
 * consecutive events are counted in a histogram of powers of two (bucket k: gaps of 2^k − 1 to
 * 2^(k+1) − 2 seconds), halved whenever it passes HALVE_AT so that recent traffic weighs most. A
 * learned expectation needs LEARN_MIN_EVENTS events over at least LEARN_MIN_SPAN_MS; it is then
 * LEARN_MULTIPLE times the 95th percentile gap, and never under LEARN_FLOOR_SECONDS.
 */

export const GAP_BUCKETS = 32;
const HALVE_AT = 10_000;
export const LEARN_MIN_EVENTS = 100;
export const LEARN_MIN_SPAN_MS = 24 * 3600_000;
export const LEARN_MULTIPLE = 4;
export const LEARN_FLOOR_SECONDS = 3600;

/** Counts one gap (ms) into the histogram (a copy of at most GAP_BUCKETS ints). */
export function addGap(histogram: readonly number[], gapMs: number): number[] {
  const gaps = Array.from({ length: GAP_BUCKETS }, (_, k) => histogram[k] ?? 0);
  const seconds = Math.max(0, Math.floor(gapMs / 1000));
  gaps[Math.min(GAP_BUCKETS - 1, Math.floor(Math.log2(seconds + 1)))] += 1;
  if (gaps.reduce((a, b) => a + b, 0) > HALVE_AT) for (let k = 0; k < GAP_BUCKETS; k++) gaps[k] = Math.floor(gaps[k] / 2);
  return gaps;
}

/** The upper bound (seconds) of the bucket holding the 95th percentile gap; null without gaps. */
export function p95GapSeconds(histogram: readonly number[]): number | null {
  const total = histogram.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  let seen = 0;
  for (let k = 0; k < histogram.length; k++) {
    seen += histogram[k];
    if (seen >= 0.95 * total) return 2 ** (k + 1) - 2;
  }
  return 2 ** histogram.length - 2;
}

/** The learned expectation (seconds), or null while the source's history is too short to learn from. */
export function learnedIntervalSeconds(activity: { eventCount: number; firstEventAt: Date | null; lastEventAt: Date | null; gaps: readonly number[] }): number | null {
  if (activity.eventCount < LEARN_MIN_EVENTS || !activity.firstEventAt || !activity.lastEventAt) return null;
  if (activity.lastEventAt.getTime() - activity.firstEventAt.getTime() < LEARN_MIN_SPAN_MS) return null;
  const p95 = p95GapSeconds(activity.gaps);
  return p95 === null ? null : Math.max(LEARN_FLOOR_SECONDS, LEARN_MULTIPLE * p95);
}
