import {
  CancellationScope,
  condition,
  defineSignal,
  isCancellation,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { AttemptOutcome, RelayActivities } from '../activities';
import type { DeliveryStatus } from '../src/common/types';
import type { SEARCH_ATTRIBUTES } from '../src/temporal/search-attributes';

/** Small on purpose: the activity reads everything else from PostgreSQL. */
export interface DeliveryWorkflowInput {
  deliveryId: string;
  /** One attempt's send time limit (RELAY_DELIVERY_TIMEOUT_MS); the activity gets a margin on top. */
  attemptTimeoutMs: number;
}

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
 * (docs/internals/delivery.md "Capacity and isolation"):
 * - between attempts (the activity has recorded `retrying` and `next_retry_at`, or `failed` and the dead-letter mark);
 * - a throttled attempt (the destination has max_concurrency attempts in flight) or a deferred one (its circuit is
 *   open): nothing was sent or counted; the same attempt asks again after the wait;
 * - a `cli` forward: the attempt hands it to the tunnel and returns; the CLI's answer arrives as the `cliAnswer`
 *   signal, raced against the attempt's time limit, and a second local activity records it.
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

  let attemptNumber = 1;
  let waitRound = 0;
  try {
    for (;;) {
      if (cancelRequested) return await finishCanceled();
      // An attempt in flight finishes and is recorded even if a cancel arrives meanwhile.
      let outcome: AttemptOutcome = await CancellationScope.nonCancellable(() =>
        attemptDelivery({ deliveryId: input.deliveryId, attemptNumber, waitRound }),
      );
      if (outcome.kind === 'awaiting_cli') {
        const { forwardId, waitMs } = outcome;
        await condition(() => answered.has(forwardId), waitMs);
        answered.delete(forwardId);
        outcome = await CancellationScope.nonCancellable(() => completeCliAttempt({ deliveryId: input.deliveryId, attemptNumber, forwardId, waitMs }));
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
          attemptNumber += 1;
          waitRound = 0;
          break;
        case 'throttled':
        case 'deferred':
          waitRound += 1;
          break;
        case 'rate_limited':
          break; // same attempt number: a platform's 429 is not a failure
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
