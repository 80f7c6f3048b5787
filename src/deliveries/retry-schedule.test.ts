import { backoffDelayMs, decideAttempt, normalizeRetryPolicy } from './retry-schedule';

const policy = { max_attempts: 4, backoff: [1, 5] };
const failure = { ok: false };

describe('retry schedule', () => {
  it('waits backoff[n-1] after attempt n, reusing the last value when the list is shorter', () => {
    expect([1, 2, 3].map((n) => backoffDelayMs(policy, n))).toEqual([1000, 5000, 5000]);
  });

  it('retries until max_attempts, then fails (dead letter)', () => {
    expect(decideAttempt(failure, 1, policy)).toEqual({ kind: 'retrying', delayMs: 1000 });
    expect(decideAttempt(failure, 3, policy)).toEqual({ kind: 'retrying', delayMs: 5000 });
    expect(decideAttempt(failure, 4, policy)).toEqual({ kind: 'failed' });
    expect(decideAttempt({ ok: true }, 4, policy)).toEqual({ kind: 'success' });
  });

  it('fails a permanent error at once', () => {
    expect(decideAttempt({ ok: false, permanent: true }, 1, policy)).toEqual({ kind: 'failed' });
  });

  it("waits at least a webhook's Retry-After (at most an hour) and never counts a chat 429", () => {
    expect(decideAttempt({ ok: false, retryAfterMs: 30_000 }, 1, policy)).toEqual({ kind: 'retrying', delayMs: 30_000 });
    expect(decideAttempt({ ok: false, retryAfterMs: 10 }, 1, policy)).toEqual({ kind: 'retrying', delayMs: 1000 });
    expect(decideAttempt({ ok: false, retryAfterMs: 9e9 }, 1, policy)).toEqual({ kind: 'retrying', delayMs: 3_600_000 });
    expect(decideAttempt({ ok: false, rateLimited: { retryAfterMs: 700, global: false } }, 4, policy)).toEqual({ kind: 'rate_limited', delayMs: 700 });
  });

  it("waits out a 503's Retry-After without counting an attempt, until the retry schedule's end", () => {
    const unavailable = { ok: false, unavailable: { retryAfterMs: 60_000 }, retryAfterMs: 60_000 };
    const window = { now: 1_000_000, deadline: 1_060_000 };
    expect(decideAttempt(unavailable, 4, policy, window)).toEqual({ kind: 'rate_limited', delayMs: 60_000 });
    // Past the schedule's end it is an ordinary failure whose retry still waits the Retry-After.
    expect(decideAttempt(unavailable, 1, policy, { ...window, deadline: 1_059_999 })).toEqual({ kind: 'retrying', delayMs: 60_000 });
    expect(decideAttempt(unavailable, 4, policy, { ...window, deadline: 1_059_999 })).toEqual({ kind: 'failed' });
    expect(decideAttempt(unavailable, 1, policy)).toEqual({ kind: 'retrying', delayMs: 60_000 });
  });

  it('falls back to the default policy for unusable stored values', () => {
    expect(normalizeRetryPolicy({ max_attempts: 0, backoff: [] })).toEqual({ max_attempts: 7, backoff: [1, 5, 30, 120, 900, 3600, 21600] });
    expect(normalizeRetryPolicy({ max_attempts: 2, backoff: [3, -1] })).toEqual({ max_attempts: 2, backoff: [3] });
  });
});
