import { heartbeat } from '@temporalio/activity';
import { purgeExpiredEvents, type PurgeResult } from '../src/retention/purge-events';
import type { ActivityDeps } from './deps';

export function createRetentionActivities(deps: ActivityDeps) {
  return {
    /** One slice of the retention sweep: deletes expired events (with their deliveries and attempts) for up to `budgetMs`. */
    async purgeExpiredEvents(input: { batchSize: number; budgetMs: number }): Promise<PurgeResult> {
      const knex = deps.orm.em.getConnection().getKnex();
      const result = await purgeExpiredEvents(knex, {
        defaultDays: deps.config.RELAY_EVENT_RETENTION_DAYS,
        batchSize: input.batchSize,
        budgetMs: input.budgetMs,
        onProgress: (deleted) => heartbeat({ deleted }),
      });
      if (result.deleted > 0) deps.log.info({ deleted: result.deleted, more: result.more }, 'expired events removed');
      return result;
    },
  };
}
