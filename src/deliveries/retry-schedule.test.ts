import { backoffDelayMs, decideAttempt, MAX_WAITS_PER_ATTEMPT, normalizeRetryPolicy, scheduleDeadline, scheduledAttempt } from './retry-schedule';

const policy = { max_attempts: 4, backoff: [1, 5] };
const failure = { ok: false };
/** Far from the schedule's end, nothing waited out yet. */
const open = { now: 1_000_000, deadline: 9_000_000, waits: 0 };

describe('retry schedule', () => {
  it('waits backoff[n-1] after attempt n, reusing the last value when the list is shorter', () => {
    expect([1, 2, 3].map((n) => backoffDelayMs(policy, n))).toEqual([1000, 5000, 5000]);
  });

  it('retries until max_attempts, then fails (dead letter)', () => {
    expect(decideAttempt(failure, 1, policy, open)).toEqual({ kind: 'retrying', delayMs: 1000 });
    expect(decideAttempt(failure, 3, policy, open)).toEqual({ kind: 'retrying', delayMs: 5000 });
    expect(decideAttempt(failure, 4, policy, open)).toEqual({ kind: 'failed' });
    expect(decideAttempt({ ok: true }, 4, policy, open)).toEqual({ kind: 'success' });
  });

  it('fails a permanent error at once', () => {
    expect(decideAttempt({ ok: false, permanent: true }, 1, policy, open)).toEqual({ kind: 'failed' });
  });

  it("waits at least a webhook's Retry-After, within 1 s and 1 h", () => {
    expect(decideAttempt({ ok: false, retryAfterMs: 30_000 }, 1, policy, open)).toEqual({ kind: 'retrying', delayMs: 30_000 });
    expect(decideAttempt({ ok: false, retryAfterMs: 10 }, 1, policy, open)).toEqual({ kind: 'retrying', delayMs: 1000 });
    expect(decideAttempt({ ok: false, retryAfterMs: 0 }, 1, { max_attempts: 4, backoff: [0] }, open)).toEqual({ kind: 'retrying', delayMs: 1000 });
    expect(decideAttempt({ ok: false, retryAfterMs: 9e9 }, 1, policy, open)).toEqual({ kind: 'retrying', delayMs: 3_600_000 });
  });

  it("waits out a chat 429 or a 503's Retry-After without counting it, at least 1 s, until the retry schedule's end", () => {
    const limited = { ok: false, rateLimited: { retryAfterMs: 700, global: false } };
    expect(decideAttempt(limited, 4, policy, open)).toEqual({ kind: 'rate_limited', delayMs: 1000 });
    const unavailable = { ok: false, unavailable: { retryAfterMs: 60_000 }, retryAfterMs: 60_000 };
    const window = { now: 1_000_000, deadline: 1_060_000, waits: 0 };
    expect(decideAttempt(unavailable, 4, policy, window)).toEqual({ kind: 'rate_limited', delayMs: 60_000 });
    // Past the schedule's end it is an ordinary failure whose retry still waits the Retry-After.
    const late = { ...window, deadline: 1_059_999 };
    const note = 'counted as a failed attempt: the wait would end after the retry schedule';
    expect(decideAttempt(unavailable, 1, policy, late)).toEqual({ kind: 'retrying', delayMs: 60_000, note });
    expect(decideAttempt(unavailable, 4, policy, late)).toEqual({ kind: 'failed', note });
    const longLimit = { ok: false, rateLimited: { retryAfterMs: 70_000, global: true } };
    expect(decideAttempt(longLimit, 1, policy, late)).toEqual({ kind: 'retrying', delayMs: 70_000, note });
    expect(decideAttempt(longLimit, 4, policy, late)).toEqual({ kind: 'failed', note });
  });

  it('a zero or past wait still waits the floor, so a one-attempt schedule fails at the first answer asking to wait', () => {
    const oneShot = { max_attempts: 1, backoff: [1] };
    const created = new Date(1_000_000);
    const window = { now: 1_000_050, deadline: scheduleDeadline(created, oneShot), waits: 0 };
    expect(window.deadline).toBe(1_000_000);
    const note = 'counted as a failed attempt: the wait would end after the retry schedule';
    expect(decideAttempt({ ok: false, rateLimited: { retryAfterMs: 0, global: false } }, 1, oneShot, window)).toEqual({ kind: 'failed', note });
    expect(decideAttempt({ ok: false, unavailable: { retryAfterMs: 0 }, retryAfterMs: 0 }, 1, oneShot, window)).toEqual({ kind: 'failed', note });
  });

  it(`waits out at most ${MAX_WAITS_PER_ATTEMPT} answers in a row per attempt; the next counts`, () => {
    const limited = { ok: false, rateLimited: { retryAfterMs: 2000, global: false } };
    expect(decideAttempt(limited, 1, policy, { ...open, waits: MAX_WAITS_PER_ATTEMPT - 1 })).toEqual({ kind: 'rate_limited', delayMs: 2000 });
    const note = `counted as a failed attempt: ${MAX_WAITS_PER_ATTEMPT} answers in a row asked to wait`;
    expect(decideAttempt(limited, 1, policy, { ...open, waits: MAX_WAITS_PER_ATTEMPT })).toEqual({ kind: 'retrying', delayMs: 2000, note });
    expect(decideAttempt(limited, 4, policy, { ...open, waits: MAX_WAITS_PER_ATTEMPT })).toEqual({ kind: 'failed', note });
  });

  it("an attempt's place in the schedule leaves out the answers waited out", () => {
    expect(scheduledAttempt({ attemptNumber: 1 })).toBe(1);
    expect(scheduledAttempt({ attemptNumber: 3 })).toBe(3);
    expect(scheduledAttempt({ attemptNumber: 7, counted: 1 })).toBe(2);
  });

  it('falls back to the default policy for unusable stored values', () => {
    expect(normalizeRetryPolicy({ max_attempts: 0, backoff: [] })).toEqual({ max_attempts: 7, backoff: [1, 5, 30, 120, 900, 3600, 21600] });
    expect(normalizeRetryPolicy({ max_attempts: 2, backoff: [3, -1] })).toEqual({ max_attempts: 2, backoff: [3] });
  });
});
