import type { Knex } from '@mikro-orm/postgresql';
import { uuidv7LowerBound } from '../common/ids';

/**
 * Event retention (docs/concepts.md#events-deliveries-and-attempts): each project keeps events for its
 * `retention_days`, else the deployment default (RELAY_EVENT_RETENTION_DAYS).
 * Deleting an event deletes its deliveries and their attempts (foreign keys
 * `on delete cascade`). Age is the event's receipt time: its UUIDv7 id bounds
 * the range on the (project_id, id) index and `created_at` confirms it.
 * Deletes go in small batches so that no statement holds locks for long.
 */
export interface PurgeOptions {
  defaultDays: number;
  batchSize: number;
  /** Stop after this long and report `more` (the caller comes back). */
  budgetMs: number;
  now?: number;
  /** Called between batches (activity heartbeats). */
  onProgress?: (deleted: number) => void;
}

export interface PurgeResult {
  deleted: number;
  more: boolean;
}

export async function purgeExpiredEvents(knex: Knex, opts: PurgeOptions): Promise<PurgeResult> {
  const now = opts.now ?? Date.now();
  const started = Date.now();
  const { rows: projects } = await knex.raw<{ rows: Array<{ id: string; days: number }> }>(
    'select id, coalesce(retention_days, ?)::int as days from projects order by id',
    [opts.defaultDays],
  );
  let deleted = 0;
  for (const project of projects) {
    const cutoff = new Date(now - project.days * 86_400_000);
    for (;;) {
      if (Date.now() - started > opts.budgetMs) return { deleted, more: true };
      const { rowCount } = await knex.raw<{ rowCount: number }>(
        `delete from events where id in (
           select id from events where project_id = ? and id < ?::uuid and created_at < ? order by id limit ?)`,
        [project.id, uuidv7LowerBound(cutoff.getTime()), cutoff, opts.batchSize],
      );
      deleted += rowCount;
      opts.onProgress?.(deleted);
      if (rowCount < opts.batchSize) break;
    }
  }
  return { deleted, more: false };
}
