import type { Knex } from '@mikro-orm/postgresql';
import { Context } from '@temporalio/activity';
import type { Logger } from '../common/logger';

/**
 * Debug timing of an attempt's path to its send, switched on by
 * RELAY_ATTEMPT_TIMING_MS (a threshold in ms; docs/delivery.md "Where a fast
 * delivery's time goes in the worker"). For every attempt whose local activity
 * was scheduled more than the threshold before its send, one `attempt timing`
 * line: when the eager start returned, the local activity's wait for a slot,
 * the context query (with its pool wait), the preparation, the worst main-thread
 * stall in that span and the pool's state. Off (unset): nothing runs.
 */
export interface AttemptTimer {
  /** The dispatcher's eager start of this delivery returned (its first workflow task reached the worker). */
  startReturned(deliveryId: string): void;
  /** Phases of one attempt, from its local activity's scheduling to the send. */
  begin(deliveryId: string, scheduledAtMs: number | undefined): AttemptPhases;
}

export interface AttemptPhases {
  /** The context query (admission included) returned. */
  contextLoaded(): void;
  /** The attempt sent (or was refused) at `sendStartedAtMs`; logs when it is over the threshold. */
  end(extra: Record<string, unknown>, sendStartedAtMs: number): void;
}

const NOOP_PHASES: AttemptPhases = { contextLoaded: () => undefined, end: () => undefined };
const NOOP: AttemptTimer = { startReturned: () => undefined, begin: () => NOOP_PHASES };

const LAG_SAMPLE_MS = 10;
const KEEP_MS = 60_000;

let current: AttemptTimer = NOOP;

export function attemptTimer(): AttemptTimer {
  return current;
}

/** Installs the timer when `thresholdMs` is set; returns its stop. */
export function installAttemptTimer(thresholdMs: number | undefined, log: Logger, knex: () => Knex): () => void {
  if (thresholdMs === undefined) return () => undefined;
  const starts = new Map<string, number>();
  // Main-thread stalls: a timer every 10 ms notes how late it fired.
  const lags: Array<[at: number, lagMs: number]> = [];
  let expected = Date.now() + LAG_SAMPLE_MS;
  const sampler = setInterval(() => {
    const at = Date.now();
    const lag = at - expected;
    expected = at + LAG_SAMPLE_MS;
    if (lag >= 5) lags.push([at, lag]);
    while (lags.length > 0 && lags[0][0] < at - KEEP_MS) lags.shift();
  }, LAG_SAMPLE_MS);
  sampler.unref();
  const pool = () => {
    const p = (knex().client as { pool?: { numUsed(): number; numFree(): number; numPendingAcquires(): number } }).pool;
    return p ? { used: p.numUsed(), free: p.numFree(), pending: p.numPendingAcquires() } : null;
  };
  current = {
    startReturned(deliveryId) {
      starts.set(deliveryId, Date.now());
      if (starts.size > 10_000) starts.delete(starts.keys().next().value as string);
    },
    begin(deliveryId, scheduledAtMs) {
      const entered = Date.now();
      const poolAtEntry = pool();
      let contextAt: number | undefined;
      return {
        contextLoaded() {
          contextAt = Date.now();
        },
        end(extra, sendAt) {
          const startAt = starts.get(deliveryId);
          starts.delete(deliveryId);
          const from = scheduledAtMs ?? entered;
          if (sendAt - from < thresholdMs) return;
          const stall = lags.filter(([at, lag]) => at >= from && at - lag <= sendAt);
          // Warn: the switch is an explicit request for these lines, whatever LOG_LEVEL says otherwise.
          log.warn(
            {
              deliveryId,
              ...extra,
              startReturnedToScheduledMs: startAt === undefined ? null : from - startAt,
              scheduledToActivityMs: scheduledAtMs === undefined ? null : entered - scheduledAtMs,
              contextQueryMs: contextAt === undefined ? null : contextAt - entered,
              prepareMs: contextAt === undefined ? null : sendAt - contextAt,
              scheduledToSendMs: sendAt - from,
              worstStallMs: stall.reduce((m, [, lag]) => Math.max(m, lag), 0),
              stalls: stall.length,
              poolAtEntry,
            },
            'attempt timing',
          );
        },
      };
    },
  };
  return () => {
    clearInterval(sampler);
    current = NOOP;
  };
}

/** When the running local activity's current attempt was scheduled (undefined outside an activity: a direct call in a test). */
export function activityScheduledAt(): number | undefined {
  try {
    return Context.current().info.currentAttemptScheduledTimestampMs;
  } catch {
    return undefined;
  }
}
