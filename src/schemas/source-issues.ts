import type { Knex } from '@mikro-orm/postgresql';
import type { OperationalEventType } from '../operational-events/operational-events';

/**
 * Issues about a source (docs/schemas.md): `schema_changed` (one active per source and event type)
 * and `source_silent` (one active per source). Written inside the source monitor's transactions under
 * the source's issue lock (the one relay_set_issue_state takes), and announced as operational events.
 */

export type SourceIssueCause = 'schema_changed' | 'source_silent';

export interface SourceRef {
  id: string;
  name: string;
  slug: string;
}

export interface IssueRow {
  id: string;
  cause: SourceIssueCause;
  state: 'open' | 'acknowledged' | 'resolved' | 'ignored';
  event_type: string | null;
  first_seen_at: Date;
  last_seen_at: Date;
  failure_count: number;
  event_count: number;
  last_error: string | null;
  resolved_at: Date | null;
  resolved_by: 'auto' | 'user' | null;
}

const lockSource = (trx: Knex, endpointId: string) => trx.raw(`select pg_advisory_xact_lock(hashtextextended('issues:' || ?::text, 0))`, [endpointId]);

/**
 * Counts one occurrence (a change, a silent episode) into the source's active issue of this cause and
 * event type, or opens one. `eventId`: the event that showed it, an affected event of the issue.
 */
export async function recordSourceIssue(
  trx: Knex,
  p: { projectId: string; endpointId: string; cause: SourceIssueCause; eventType: string | null; eventId: string | null; summary: string },
): Promise<{ issue: IssueRow; opened: boolean }> {
  await lockSource(trx, p.endpointId);
  const { rows } = await trx.raw<{ rows: IssueRow[] }>(
    `select * from issues where endpoint_id = ? and cause = ? and coalesce(event_type, '') = ? and state <> 'resolved'`,
    [p.endpointId, p.cause, p.eventType ?? ''],
  );
  if (rows[0]) {
    const added = p.eventId ? (await trx.raw('insert into issue_events (issue_id, event_id) values (?, ?) on conflict do nothing', [rows[0].id, p.eventId])).rowCount : 0;
    const { rows: updated } = await trx.raw<{ rows: IssueRow[] }>(
      `update issues set failure_count = failure_count + 1, event_count = event_count + ?, last_seen_at = now(), last_error = ?, updated_at = now()
        where id = ? returning *`,
      [added, p.summary, rows[0].id],
    );
    return { issue: updated[0], opened: false };
  }
  const { rows: inserted } = await trx.raw<{ rows: IssueRow[] }>(
    `insert into issues (project_id, endpoint_id, event_type, cause, last_error, event_count) values (?, ?, ?, ?, ?, ?) returning *`,
    [p.projectId, p.endpointId, p.eventType, p.cause, p.summary, p.eventId ? 1 : 0],
  );
  if (p.eventId) await trx.raw('insert into issue_events (issue_id, event_id) values (?, ?)', [inserted[0].id, p.eventId]);
  return { issue: inserted[0], opened: true };
}

/** Resolves (`auto`) the source's open or acknowledged issue of this cause; returns it, or null (none, or ignored). */
export async function resolveSourceIssue(trx: Knex, endpointId: string, cause: SourceIssueCause): Promise<IssueRow | null> {
  await lockSource(trx, endpointId);
  const { rows } = await trx.raw<{ rows: IssueRow[] }>(
    `update issues set state = 'resolved', resolved_at = now(), resolved_by = 'auto', updated_at = now()
      where endpoint_id = ? and cause = ? and state in ('open', 'acknowledged') returning *`,
    [endpointId, cause],
  );
  return rows[0] ?? null;
}

/** An issue as operational events carry it. */
export function issueData(i: IssueRow) {
  const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
  return {
    id: i.id,
    cause: i.cause,
    state: i.state,
    event_type: i.event_type,
    first_seen_at: iso(i.first_seen_at),
    last_seen_at: iso(i.last_seen_at),
    count: i.failure_count,
    event_count: i.event_count,
    resolved_at: iso(i.resolved_at),
    resolved_by: i.resolved_by,
  };
}

/** An operational occurrence, published on the project's system source (src/operational-events). */
export async function emitOperational(trx: Knex, projectId: string, type: OperationalEventType, key: string, data: Record<string, unknown>): Promise<void> {
  await trx.raw('select relay_emit_operational(?::uuid, ?, ?, ?::jsonb)', [projectId, type, key, JSON.stringify(data)]);
}
