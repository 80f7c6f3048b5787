import type { EntityManager } from '@mikro-orm/postgresql';
import { acceptDrift, countNodes, type Retyped, type ShapeNode } from './shape';

/**
 * Accepting changes (docs/schemas.md "Accepting a change"): their new shape becomes the expected one
 * (src/schemas/shape.ts acceptDrift). The schema's row is locked before any issue (the learner's
 * order: schema rows, then the source's issue lock), so accepting and learning never deadlock.
 * Runs inside the caller's transaction.
 */

/** Locks the schema of a `schema_changed` issue's source and event type; returns its id (none: the source was deleted). */
export async function lockIssueSchema(em: EntityManager, issueId: string): Promise<string | null> {
  const rows = await em.getConnection().execute<Array<{ id: string }>>(
    `select s.id from event_schemas s join issues i on i.endpoint_id = s.endpoint_id and i.event_type = s.event_type where i.id = ? for update of s`,
    [issueId],
  );
  return rows[0]?.id ?? null;
}

/** Accepts the schema's changes not accepted yet (all, or those of one issue); returns how many. The schema must be locked. */
export async function acceptChanges(em: EntityManager, schemaId: string, issueId?: string): Promise<number> {
  const conn = em.getConnection();
  const [schema] = await conn.execute<Array<{ shape: ShapeNode }>>('select shape from event_schemas where id = ?', [schemaId]);
  const changes = await conn.execute<Array<{ id: string; removed: string[]; retyped: Retyped[] }>>(
    `select id, removed, retyped from schema_changes where schema_id = ? and accepted_at is null ${issueId ? 'and issue_id = ?' : ''} order by id`,
    issueId ? [schemaId, issueId] : [schemaId],
  );
  if (!schema || changes.length === 0) return 0;
  let shape = schema.shape;
  for (const change of changes) shape = acceptDrift(shape, change);
  await conn.execute('update event_schemas set shape = ?::jsonb, path_count = ?, updated_at = now() where id = ?', [JSON.stringify(shape), countNodes(shape), schemaId]);
  await conn.execute(`update schema_changes set accepted_at = now() where id = any(?::uuid[])`, [`{${changes.map((c) => c.id).join(',')}}`]);
  return changes.length;
}
