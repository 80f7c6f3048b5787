import type { ActivityDeps } from './deps';
import { createPingActivities } from './ping.activities';

export type { ActivityDeps } from './deps';

/** All activities, built from their dependencies (the Temporal samples' factory pattern). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createPingActivities(deps),
  };
}

export type RelayActivities = ReturnType<typeof createActivities>;
