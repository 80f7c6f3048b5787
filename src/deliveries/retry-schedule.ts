import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../common/types';
import { MAX_RETRY_AFTER_MS } from '../sending/retry-after';
import type { SendResult } from '../sending/send-result';

/** A stored policy, made safe to use: at least one attempt, non-negative delays. */
export function normalizeRetryPolicy(policy: Partial<RetryPolicy> | null | undefined): RetryPolicy {
  const maxAttempts = Number.isInteger(policy?.max_attempts) && policy!.max_attempts! >= 1 ? policy!.max_attempts! : DEFAULT_RETRY_POLICY.max_attempts;
  const backoff = Array.isArray(policy?.backoff) ? policy!.backoff!.filter((s) => Number.isFinite(s) && s >= 0) : [];
  return { max_attempts: maxAttempts, backoff: backoff.length > 0 ? backoff : [...DEFAULT_RETRY_POLICY.backoff] };
}

/** The wait after attempt `attemptNumber` (1-based): `backoff[n-1]`, the last value reused when the list is shorter. */
export function backoffDelayMs(policy: RetryPolicy, attemptNumber: number): number {
  const { backoff } = policy;
  const seconds = backoff[Math.min(attemptNumber, backoff.length) - 1] ?? 0;
  return Math.round(seconds * 1000);
}

/**
 * What one send means for the delivery:
 * - `rate_limited`: a chat platform's 429, or a receiver's 503 with Retry-After whose wait ends before the
 *   retry schedule does (`window`); no attempt is recorded or counted, wait and send again;
 * - `success`: a 2xx;
 * - `retrying`: failed, attempts remain; wait `delayMs` (at least a webhook's Retry-After, capped at 1 h);
 * - `failed`: failed for good (last attempt, or a permanent failure): dead-lettered;
 * - `skipped`: a `cli` forward not made (CLI away or paused): ends the delivery, not a failure.
 */
export type AttemptDecision =
  | { kind: 'rate_limited'; delayMs: number }
  | { kind: 'success' }
  | { kind: 'retrying'; delayMs: number }
  | { kind: 'failed' }
  | { kind: 'skipped' };

export function decideAttempt(
  result: Pick<SendResult, 'ok' | 'rateLimited' | 'retryAfterMs' | 'unavailable' | 'permanent' | 'skipped'>,
  attemptNumber: number,
  policy: RetryPolicy,
  /** `now` and the retry schedule's end (scheduleDeadline): a 503's wait past it counts as a failed attempt, so a receiver cannot keep a delivery forever. */
  window?: { now: number; deadline: number },
): AttemptDecision {
  if (result.ok) return { kind: 'success' };
  if (result.skipped) return { kind: 'skipped' };
  if (result.rateLimited) return { kind: 'rate_limited', delayMs: Math.max(0, result.rateLimited.retryAfterMs) };
  const unavailableMs = result.unavailable ? Math.min(Math.max(0, result.unavailable.retryAfterMs), MAX_RETRY_AFTER_MS) : null;
  if (unavailableMs !== null && window && window.now + unavailableMs <= window.deadline) return { kind: 'rate_limited', delayMs: unavailableMs };
  if (result.permanent || attemptNumber >= policy.max_attempts) return { kind: 'failed' };
  const retryAfter = Math.min(Math.max(0, result.retryAfterMs ?? 0), MAX_RETRY_AFTER_MS);
  return { kind: 'retrying', delayMs: Math.max(backoffDelayMs(policy, attemptNumber), retryAfter) };
}

/**
 * When the retry schedule would have made its last attempt, had every attempt
 * been instant: the delivery's creation plus every wait before the last one.
 * A circuit breaker's deferrals never keep a delivery past this (it then fails
 * and is dead-lettered without a send).
 */
export function scheduleDeadline(createdAt: Date, policy: RetryPolicy): number {
  let total = 0;
  for (let n = 1; n < policy.max_attempts; n++) total += backoffDelayMs(policy, n);
  return createdAt.getTime() + total;
}
