import { type Client, ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Logger } from '../common/logger';

/** One schedule per task queue (a deployment has one; tests each have their own). */
export function retentionScheduleId(taskQueue: string): string {
  return `relay-event-retention-${taskQueue}`;
}

/**
 * Creates the hourly Temporal Schedule that runs `retentionWorkflow`, unless it
 * exists: every worker calls this at start, so whichever starts first creates
 * it and the rest find it (a schedule already there is left as it is, so an
 * operator may pause or retime it in the Temporal UI).
 */
export async function ensureRetentionSchedule(client: Client, taskQueue: string, log: Logger): Promise<'created' | 'exists'> {
  const scheduleId = retentionScheduleId(taskQueue);
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: '1 hour' }] },
      action: { type: 'startWorkflow', workflowType: 'retentionWorkflow', workflowId: `event-retention-${taskQueue}`, taskQueue, args: [] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
    });
    log.info({ scheduleId }, 'event retention schedule created');
    return 'created';
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return 'exists';
    throw err;
  }
}
