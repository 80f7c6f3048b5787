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
  /**
   * The longest an attempt may wait on top of attemptTimeoutMs: a `cli` destination's
   * session delay (the CLI waits that long before its local POST). Absent in workflows started before it existed.
   */
  maxExtraWaitMs?: number;
}

/** Ends a queued or retrying delivery (RULINGS.md §10); the cancel service sends it. */
export const cancelDeliverySignal = defineSignal('cancelDelivery');

// The name is checked against src/temporal/search-attributes.ts at compile time (workflow code may not import it).
const statusAttributeName: (typeof SEARCH_ATTRIBUTES)['deliveryStatus'] = 'RelayDeliveryStatus';
const statusKey = defineSearchAttributeKey(statusAttributeName, SearchAttributeType.KEYWORD);

function setStatus(status: DeliveryStatus): void {
  upsertSearchAttributes([{ key: statusKey, value: status }]);
}

/**
 * One delivery of one event to one destination (workflow id `delivery-<deliveryId>`).
 * Each attempt is ONE local activity (route, transform, render, send, record),
 * so a delivery that succeeds at once costs a single workflow task. Between
 * attempts it waits on a durable timer; the activity has already recorded
 * `retrying` and `next_retry_at`, or `failed` and the dead-letter mark.
 */
export async function deliveryWorkflow(input: DeliveryWorkflowInput): Promise<DeliveryStatus | 'gone'> {
  const { attemptDelivery, cancelDelivery } = proxyLocalActivities<RelayActivities>({
    startToCloseTimeout: input.attemptTimeoutMs + (input.maxExtraWaitMs ?? 0) + 15_000,
    // Only infrastructure errors (database down, worker lost) reach here: the activity is idempotent per attempt.
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  let cancelRequested = false;
  setHandler(cancelDeliverySignal, () => {
    cancelRequested = true;
  });
  const finishCanceled = async (): Promise<DeliveryStatus> => {
    await CancellationScope.nonCancellable(() => cancelDelivery({ deliveryId: input.deliveryId }));
    setStatus('canceled');
    return 'canceled';
  };

  let attemptNumber = 1;
  try {
    for (;;) {
      if (cancelRequested) return await finishCanceled();
      // An attempt in flight finishes and is recorded even if a cancel arrives meanwhile.
      const outcome: AttemptOutcome = await CancellationScope.nonCancellable(() =>
        attemptDelivery({ deliveryId: input.deliveryId, attemptNumber }),
      );
      switch (outcome.kind) {
        case 'gone':
          return 'gone';
        case 'success':
        case 'failed':
        case 'canceled':
          setStatus(outcome.kind);
          return outcome.kind;
        case 'retrying':
          setStatus('retrying');
          attemptNumber += 1;
          break;
        case 'rate_limited':
          break; // same attempt number: a platform's 429 is not a failure
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
