import type { ActivityDeps } from './deps';
import { createDeliveryActivities } from './delivery.activities';
import { createPingActivities } from './ping.activities';
import { createRetentionActivities } from './retention.activities';

export type { ActivityDeps } from './deps';
export type { AttemptOutcome } from './delivery.activities';

/** All activities, built from their dependencies (the Temporal samples' factory pattern). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createPingActivities(deps),
    ...createDeliveryActivities(deps),
    ...createRetentionActivities(deps),
  };
}

export type RelayActivities = ReturnType<typeof createActivities>;
