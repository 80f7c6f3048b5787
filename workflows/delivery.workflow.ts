import {
  CancellationScope,
  condition,
  defineSignal,
  isCancellation,
  makeContinueAsNewFunc,
  patched,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { AttemptOutcome, RelayActivities } from '../activities';
import type { DeliveryStatus } from '../src/common/types';
import type { DeliveryProgress } from '../src/deliveries/retry-schedule';
import type { SEARCH_ATTRIBUTES } from '../src/temporal/search-attributes';

/** Small on purpose: the activity reads everything else from PostgreSQL. */
export interface DeliveryWorkflowInput {
  deliveryId: string;
  /** One attempt's send time limit (RELAY_DELIVERY_TIMEOUT_MS); the activity gets a margin on top. */
  attemptTimeoutMs: number;
  /** Where the previous run stopped, when this run continues it (continue-as-new); absent on the first run. */
  progress?: Required<DeliveryProgress>;
  /** Continue as new once the history has this many events (default HISTORY_EVENT_LIMIT; tests lower it). */
  historyEventLimit?: number;
}

/**
 * A delivery's history stays short however long a receiver keeps it waiting (throttled behind its own slow
 * destination for hours, waits asked by its answers): past this many events the workflow continues as new,
 * carrying its progress. Well under Temporal's own limits (50,000 events; it suggests continuing at 4 Ki).
 */
export const HISTORY_EVENT_LIMIT = 2000;

/** Ends a queued or retrying delivery (docs/delivery.md#replay-cancel-and-bulk-actions); the cancel service sends it. */
export const cancelDeliverySignal = defineSignal('cancelDelivery');

/** The CLI answered the forward with this id (reportCliForward sends it): the wait for it ends. */
export const cliAnswerSignal = defineSignal<[forwardId: string]>('cliAnswer');

// The name is checked against src/temporal/search-attributes.ts at compile time (workflow code may not import it).
const statusAttributeName: (typeof SEARCH_ATTRIBUTES)['deliveryStatus'] = 'RelayDeliveryStatus';
const statusKey = defineSearchAttributeKey(statusAttributeName, SearchAttributeType.KEYWORD);

function setStatus(status: DeliveryStatus): void {
  upsertSearchAttributes([{ key: statusKey, value: status }]);
}

/**
 * One delivery of one event to one destination (workflow id `delivery-<deliveryId>`).
 * Each attempt is ONE local activity (admission, route, transform, render, send,
 * record), so a delivery that succeeds at once costs a single workflow task.
 * Every wait is here, on durable timers, never in a worker slot
 * (docs/internals/delivery.md "Capacity and isolation"), and every wait is bounded (docs/receiver-signals.md):
 * - between attempts (the activity has recorded `retrying` and `next_retry_at`, or `failed` and the dead-letter mark);
 * - an answer waited out (a 429, a 503 with Retry-After): recorded as a `rate_limited` attempt that the retry schedule
 *   does not count; the activity stops granting them past the schedule's end or MAX_WAITS_PER_ATTEMPT in a row;
 * - a throttled attempt (the destination has max_concurrency attempts in flight) or a deferred one (its circuit is
 *   open): nothing was sent or counted; the same attempt asks again after the wait (deferrals end with the schedule,
 *   throttled waits with THROTTLE_BUDGET_MS);
 * - a `cli` forward: the attempt hands it to the tunnel and returns; the CLI's answer arrives as the `cliAnswer`
 *   signal, raced against the attempt's time limit, and a second local activity records it.
 * Between attempts, past `historyEventLimit` events, the workflow continues as new with its progress (signals sent
 * meanwhile reach the new run: they address the workflow id).
 */
export async function deliveryWorkflow(input: DeliveryWorkflowInput): Promise<DeliveryStatus | 'gone'> {
  const { attemptDelivery, completeCliAttempt, cancelDelivery } = proxyLocalActivities<RelayActivities>({
    // An attempt's own wait for a receiver is bounded by attemptTimeoutMs; a CLI's answer is waited for here, not in it.
    startToCloseTimeout: input.attemptTimeoutMs + 15_000,
    // Only infrastructure errors (database down, worker lost) reach here: the activity is idempotent per attempt.
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  let cancelRequested = false;
  setHandler(cancelDeliverySignal, () => {
    cancelRequested = true;
  });
  const answered = new Set<string>();
  setHandler(cliAnswerSignal, (forwardId) => {
    answered.add(forwardId);
  });
  const finishCanceled = async (): Promise<DeliveryStatus> => {
    await CancellationScope.nonCancellable(() => cancelDelivery({ deliveryId: input.deliveryId }));
    setStatus('canceled');
    return 'canceled';
  };
  const historyEventLimit = input.historyEventLimit ?? HISTORY_EVENT_LIMIT;
  const historyFull = () => {
    const info = workflowInfo();
    return info.continueAsNewSuggested || info.historyLength >= historyEventLimit;
  };

  const progress: Required<DeliveryProgress> = input.progress ?? { attemptNumber: 1, counted: 0, waits: 0, waitRound: 0, throttledMs: 0 };
  try {
    for (;;) {
      if (cancelRequested) return await finishCanceled();
      // Asked only once the history is long, so a short delivery's history has no patch marker.
      if (historyFull() && patched('continue-as-new')) {
        // The search attributes as they stand (the status included) go with it.
        await makeContinueAsNewFunc<typeof deliveryWorkflow>({ typedSearchAttributes: workflowInfo().typedSearchAttributes })({ ...input, progress });
      }
      const { deliveryId } = input;
      // An attempt in flight finishes and is recorded even if a cancel arrives meanwhile.
      let outcome: AttemptOutcome = await CancellationScope.nonCancellable(() => attemptDelivery({ deliveryId, ...progress }));
      if (outcome.kind === 'awaiting_cli') {
        const { forwardId, waitMs } = outcome;
        await condition(() => answered.has(forwardId), waitMs);
        answered.delete(forwardId);
        outcome = await CancellationScope.nonCancellable(() => completeCliAttempt({ deliveryId, ...progress, forwardId, waitMs }));
      }
      switch (outcome.kind) {
        case 'gone':
          return 'gone';
        case 'success':
        case 'failed':
        case 'skipped':
        case 'canceled':
          setStatus(outcome.kind);
          return outcome.kind;
        case 'retrying':
          setStatus('retrying');
          Object.assign(progress, { attemptNumber: progress.attemptNumber + 1, counted: progress.counted + 1, waits: 0, waitRound: 0 });
          break;
        case 'throttled':
          progress.waitRound += 1;
          progress.throttledMs += outcome.delayMs;
          break;
        case 'deferred':
          progress.waitRound += 1;
          break;
        case 'rate_limited':
          // Recorded as an attempt of its own kind: the next one takes the next number, and counts the same.
          if (outcome.recorded) {
            // The delivery reads `retrying` from the first answer waited out or counted on (set once).
            if (progress.counted === 0 && progress.waits === 0) setStatus('retrying');
            Object.assign(progress, { attemptNumber: progress.attemptNumber + 1, waits: progress.waits + 1, waitRound: 0 });
          }
          break;
        case 'awaiting_cli':
          throw new Error('a completed CLI attempt cannot await again');
      }
      // The durable timer; a cancel signal ends the wait early.
      if (outcome.delayMs > 0) await condition(() => cancelRequested, outcome.delayMs);
    }
  } catch (err) {
    // Cancelled from the Temporal UI or CLI rather than through the API: record it the same way.
    if (isCancellation(err)) return await finishCanceled();
    throw err;
  }
}
