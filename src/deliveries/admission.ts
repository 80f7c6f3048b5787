import type { Admission } from './attempt-store';

/**
 * What an attempt does with the admission relay_admit_attempt gave it
 * (docs/internals/delivery.md "Capacity and isolation"). Pure: the activity passes the
 * clock and the randomness.
 * - `send`: it holds a lease on the destination (a `probe` is the one attempt a cooled-down circuit lets through);
 * - `throttled`: max_concurrency attempts are in flight; wait on a workflow timer, then ask again (not counted);
 * - `deferred`: the circuit is open; wait until its next probe (spread out), then ask again (not counted);
 * - `expired`: the circuit is still open after the retry schedule's end, or the delivery has waited throttled for
 *   THROTTLE_BUDGET_MS in all: fail now (dead letter) with `error`, nothing sent. No wait makes a delivery immortal.
 */
export type AdmissionAction =
  | { kind: 'send'; probe: boolean }
  | { kind: 'throttled'; delayMs: number }
  | { kind: 'deferred'; delayMs: number }
  | { kind: 'expired'; error: string; failure: 'circuit_open' | 'timeout' };

/**
 * How long a delivery may wait throttled, all its attempts together, before it is dead-lettered. A destination's
 * own slow answers are what keep its max_concurrency slots taken (each for at most the attempt time limit), so a
 * long throttled wait is legitimate (a backlog behind a slow receiver), but it has an end.
 */
export const THROTTLE_BUDGET_MS = 24 * 60 * 60 * 1000;

/** A throttled attempt asks again after 250 ms, doubling per refusal up to this (± half, so waiters spread out). */
export const THROTTLE_MAX_WAIT_MS = 5000;
const THROTTLE_FIRST_WAIT_MS = 250;
/** Deferred attempts wake spread over up to this after the circuit's probe time, so a reopened destination is not stampeded. */
export const DEFER_SPREAD_MS = 5000;

export function admissionAction(
  admission: Admission,
  /** `throttledMs`: what the delivery has waited throttled so far (the workflow keeps the sum). */
  opts: { now: number; deadline: number; waitRound: number; throttledMs: number; random: () => number },
): AdmissionAction {
  const { now, deadline, random } = opts;
  switch (admission.verdict) {
    case 'admitted':
      return { kind: 'send', probe: false };
    case 'probe':
      return { kind: 'send', probe: true };
    case 'throttled': {
      if (opts.throttledMs >= THROTTLE_BUDGET_MS) {
        const error = `throttled for ${THROTTLE_BUDGET_MS / 3_600_000} h: the destination's max_concurrency attempts stayed in flight; not sent`;
        return { kind: 'expired', error, failure: 'timeout' };
      }
      const base = Math.min(THROTTLE_MAX_WAIT_MS, THROTTLE_FIRST_WAIT_MS * 2 ** Math.min(opts.waitRound, 10));
      return { kind: 'throttled', delayMs: Math.round(base * (0.5 + random())) };
    }
    case 'deferred': {
      if (now >= deadline) return { kind: 'expired', error: 'circuit open: the destination stayed unreachable until the retry schedule ended', failure: 'circuit_open' };
      const untilProbe = Math.max(0, (admission.retryAt ?? now) - now);
      const spread = random() * Math.min(DEFER_SPREAD_MS, Math.max(250, untilProbe * 0.2));
      // Never sleep past the deadline: the wake-up there fails the delivery if the circuit is still open.
      return { kind: 'deferred', delayMs: Math.max(100, Math.round(Math.min(untilProbe + spread, deadline - now))) };
    }
  }
}
