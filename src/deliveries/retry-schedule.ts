import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../common/types';
import { clampRetryAfter } from '../sending/retry-after';
import type { SendResult } from '../sending/send-result';

/**
 * Where a delivery stands, as its workflow keeps it (and carries over a continue-as-new) and hands it to each attempt.
 * Absent fields (histories from before they existed) read as: every earlier attempt counted, no waits.
 */
export interface DeliveryProgress {
  /** The number the next attempt is recorded under: every recorded answer takes one, waited-out ones included. */
  attemptNumber: number;
  /** Attempts recorded so far that count towards max_attempts (every one but the waited-out answers). */
  counted?: number;
  /** Answers waited out since the last counted attempt (MAX_WAITS_PER_ATTEMPT). */
  waits?: number;
  /** Throttled or deferred refusals in a row (the throttled wait doubles with each). */
  waitRound?: number;
  /** Time spent throttled, every attempt and run together (THROTTLE_BUDGET_MS). */
  throttledMs?: number;
}

/** This attempt's place in the retry schedule: 1 + the attempts counted before it. */
export function scheduledAttempt(progress: DeliveryProgress): number {
  return (progress.counted ?? progress.attemptNumber - 1) + 1;
}

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
 * How many answers asking to wait (a 429, a 503 with Retry-After, a bot token's cooldown) one attempt
 * waits out before the next such answer counts as a failed attempt: with the 1 s floor on every wait,
 * a receiver answering "retry after 0" for ever gets at most max_attempts × (this + 1) requests.
 */
export const MAX_WAITS_PER_ATTEMPT = 10;

/**
 * What one send means for the delivery:
 * - `rate_limited`: the receiver asked to wait (a chat platform's 429 or a bot token's cooldown, a 503 with
 *   Retry-After): recorded as an attempt of its own kind, not counted towards max_attempts; wait and send again.
 *   Only while the wait ends before the retry schedule does and fewer than MAX_WAITS_PER_ATTEMPT answers were
 *   waited out since the last counted attempt; past either, the answer is a counted failure whose retry waits at
 *   least what it asked (`note` says why it was not waited out);
 * - `success`: a 2xx;
 * - `retrying`: failed, attempts remain; wait `delayMs` (the backoff, and at least a Retry-After: 1 s to 1 h);
 * - `failed`: failed for good (last attempt, or a permanent failure): dead-lettered;
 * - `skipped`: a `cli` forward not made (CLI away or paused): ends the delivery, not a failure.
 */
export type AttemptDecision =
  | { kind: 'rate_limited'; delayMs: number }
  | { kind: 'success' }
  | { kind: 'retrying'; delayMs: number; note?: string }
  | { kind: 'failed'; note?: string }
  | { kind: 'skipped' };

/** Where the delivery stands when an answer comes: the clock, the retry schedule's end (scheduleDeadline) and the answers waited out since the last counted attempt. */
export interface AttemptWindow {
  now: number;
  deadline: number;
  waits: number;
}

export function decideAttempt(
  result: Pick<SendResult, 'ok' | 'rateLimited' | 'retryAfterMs' | 'unavailable' | 'permanent' | 'skipped'>,
  /** This attempt's place in the retry schedule (waited-out answers do not count). */
  attemptNumber: number,
  policy: RetryPolicy,
  window: AttemptWindow,
): AttemptDecision {
  if (result.ok) return { kind: 'success' };
  if (result.skipped) return { kind: 'skipped' };
  const askedMs = result.rateLimited?.retryAfterMs ?? result.unavailable?.retryAfterMs;
  const waitMs = askedMs === undefined ? undefined : clampRetryAfter(askedMs);
  let note: string | undefined;
  if (waitMs !== undefined) {
    if (window.waits >= MAX_WAITS_PER_ATTEMPT) note = `counted as a failed attempt: ${MAX_WAITS_PER_ATTEMPT} answers in a row asked to wait`;
    else if (window.now + waitMs > window.deadline) note = 'counted as a failed attempt: the wait would end after the retry schedule';
    else return { kind: 'rate_limited', delayMs: waitMs };
  }
  if (result.permanent || attemptNumber >= policy.max_attempts) return note ? { kind: 'failed', note } : { kind: 'failed' };
  const retryAfter = result.retryAfterMs ?? waitMs;
  const delayMs = Math.max(backoffDelayMs(policy, attemptNumber), retryAfter === undefined ? 0 : clampRetryAfter(retryAfter));
  return note ? { kind: 'retrying', delayMs, note } : { kind: 'retrying', delayMs };
}

/**
 * When the retry schedule would have made its last attempt, had every attempt
 * been instant: the delivery's creation plus every wait before the last one.
 * Neither a circuit breaker's deferrals nor a receiver's requests to wait keep
 * a delivery past this (it then fails and is dead-lettered).
 */
export function scheduleDeadline(createdAt: Date, policy: RetryPolicy): number {
  let total = 0;
  for (let n = 1; n < policy.max_attempts; n++) total += backoffDelayMs(policy, n);
  return createdAt.getTime() + total;
}
