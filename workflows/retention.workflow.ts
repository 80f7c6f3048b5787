import { proxyActivities } from '@temporalio/workflow';
import type { RelayActivities } from '../activities';

const { purgeExpiredEvents } = proxyActivities<RelayActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 5 },
});

/** Slices per run; a backlog larger than this is finished by the next scheduled run. */
const MAX_SLICES = 100;

/**
 * Removes events older than their project's retention (docs/concepts.md#events-deliveries-and-attempts) with
 * their deliveries and attempts. Started by the Temporal Schedule of
 * src/retention/retention-schedule.ts; each activity call works for about a
 * minute, so a large backlog is many short, retryable slices.
 */
export async function retentionWorkflow(): Promise<{ deleted: number; more: boolean }> {
  let deleted = 0;
  for (let i = 0; i < MAX_SLICES; i++) {
    const slice = await purgeExpiredEvents({ batchSize: 2000, budgetMs: 60_000 });
    deleted += slice.deleted;
    if (!slice.more) return { deleted, more: false };
  }
  return { deleted, more: true };
}
