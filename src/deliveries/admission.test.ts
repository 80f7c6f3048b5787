import { admissionAction, THROTTLE_BUDGET_MS, THROTTLE_MAX_WAIT_MS } from './admission';

const opts = { now: 1_000_000, deadline: 2_000_000, waitRound: 0, throttledMs: 0, random: () => 0.5 };

describe('admissionAction: every wait for capacity has an end', () => {
  it('a throttled attempt waits 250 ms doubling to 5 s, until the throttle budget is spent; then it fails without a send', () => {
    expect(admissionAction({ verdict: 'throttled', retryAt: null }, opts)).toEqual({ kind: 'throttled', delayMs: 250 });
    expect(admissionAction({ verdict: 'throttled', retryAt: null }, { ...opts, waitRound: 30 })).toEqual({ kind: 'throttled', delayMs: THROTTLE_MAX_WAIT_MS });
    expect(admissionAction({ verdict: 'throttled', retryAt: null }, { ...opts, throttledMs: THROTTLE_BUDGET_MS - 1 }).kind).toBe('throttled');
    expect(admissionAction({ verdict: 'throttled', retryAt: null }, { ...opts, throttledMs: THROTTLE_BUDGET_MS })).toEqual({
      kind: 'expired',
      error: "throttled for 24 h: the destination's max_concurrency attempts stayed in flight; not sent",
      failure: 'timeout',
    });
  });

  it("a deferred attempt sleeps until the probe, never past the schedule's end, and fails once it has passed", () => {
    expect(admissionAction({ verdict: 'deferred', retryAt: 1_010_000 }, { ...opts, random: () => 0 })).toEqual({ kind: 'deferred', delayMs: 10_000 });
    expect(admissionAction({ verdict: 'deferred', retryAt: 9_000_000 }, { ...opts, random: () => 0 })).toEqual({ kind: 'deferred', delayMs: 1_000_000 });
    expect(admissionAction({ verdict: 'deferred', retryAt: 9_000_000 }, { ...opts, now: 2_000_000 })).toEqual({
      kind: 'expired',
      error: 'circuit open: the destination stayed unreachable until the retry schedule ended',
      failure: 'circuit_open',
    });
  });
});
