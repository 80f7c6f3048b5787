import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { AppContainer } from '../app/container';
import { authorize } from '../auth/access';
import { apiKeyPrincipal } from '../auth/principal';
import { AppError, ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../common/errors';
import { isUuid, uuidv7 } from '../common/ids';
import type { Principal, ProjectContext } from '../common/request-context';
import { DELIVERY_STATUSES } from '../common/types';
import { parseInput } from '../common/validation';
import { cancelDelivery, getDelivery, replayEventToDestination } from '../deliveries/delivery-operations.service';
import type { Delivery } from '../deliveries/delivery.entity';
import { withStatementTimeout } from '../db/statement-timeout';

type Binding = Knex.Value;

/**
 * Bulk retry and bulk cancel (issue 18.3), one service for REST, GraphQL and the dashboard.
 * A bulk action fixes its targets when it starts (the current delivery per event and destination
 * that matches the filter, at most MAX_TARGETS), then works through them in the background in
 * batches, recording its progress; each retry is a replay of that event to that destination
 * (delivery-operations.service.ts), each cancel a delivery cancel. Idempotent: the same
 * `idempotency_key` returns the action already started; a target that is no longer current (a
 * newer delivery took over) or no longer cancelable is passed over, so a resumed batch never
 * doubles a retry. The action works with its creator's authority, checked before every batch
 * (whoever's read resumed it): a creator who lost it stops the action, with the reason. The
 * queries that find the targets run under RELAY_BULK_QUERY_TIMEOUT_MS.
 */

export const MAX_TARGETS = 10_000;
const BATCH = 25;
/** A running action whose row has not moved for this long lost its process (a restart): reading it resumes it. */
const STALE_MS = 30_000;

export const BULK_KINDS = ['retry', 'cancel'] as const;
const timestamp = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp, e.g. 2026-01-31T12:00:00Z' });

export const bulkFilter = z
  .object({
    destination_id: z.uuid().optional(),
    endpoint_id: z.uuid().optional(),
    status: z.enum(DELIVERY_STATUSES).optional().describe('Retry: default `failed`. Cancel: always the pending ones (queued, retrying)'),
    event_type: z.string().max(500).optional().describe('Exact event type'),
    event_type_prefix: z.string().min(1).max(500).optional(),
    created_after: timestamp.optional().describe('Inclusive lower bound of the delivery\'s created_at'),
    created_before: timestamp.optional().describe('Exclusive upper bound of the delivery\'s created_at'),
    issue_id: z.uuid().optional().describe("The deliveries an issue affected (its destination, its events); retry's default status is then failed and retrying"),
  })
  .strict();
export type BulkFilter = z.infer<typeof bulkFilter>;

export const bulkPreviewInput = z.object({ kind: z.enum(BULK_KINDS), filter: bulkFilter.default({}) }).superRefine((v, issue) => {
  if (v.kind === 'cancel' && !v.filter.destination_id) issue.addIssue({ code: 'custom', path: ['filter', 'destination_id'], message: 'cancel needs a destination_id' });
});
export const bulkStartInput = z
  .object({
    kind: z.enum(BULK_KINDS),
    filter: bulkFilter.default({}),
    idempotency_key: z.string().min(1).max(200).describe('A key per user intent: the same key returns the action already started'),
  })
  .superRefine((v, issue) => {
    if (v.kind === 'cancel' && !v.filter.destination_id) issue.addIssue({ code: 'custom', path: ['filter', 'destination_id'], message: 'cancel needs a destination_id' });
  });

export const bulkPreviewView = z.object({ count: z.number().int().describe('Deliveries the action would touch now'), max: z.number().int() });
export const bulkActionView = z.object({
  id: z.uuid(),
  kind: z.enum(BULK_KINDS),
  filter: bulkFilter,
  idempotency_key: z.string(),
  status: z.enum(['running', 'completed', 'stopped']).describe('`stopped`: its creator no longer may retry or cancel (`stopped_reason`); reading it does not resume it'),
  stopped_reason: z.string().nullable().describe('Why a stopped action stopped'),
  total: z.number().int(),
  done: z.number().int().describe('Targets handled so far'),
  applied: z.number().int().describe('Targets retried or canceled (the rest were no longer current or cancelable)'),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type BulkActionView = z.infer<typeof bulkActionView>;

/** Runs a query that finds targets under RELAY_BULK_QUERY_TIMEOUT_MS (a broad filter over a large project can take long). */
function findingTargets<T>(ctx: ProjectContext, query: (em: EntityManager) => Promise<T>): Promise<T> {
  const ms = ctx.container.config.RELAY_BULK_QUERY_TIMEOUT_MS;
  const tooBroad = () =>
    new AppError(400, 'bulk_too_broad', `Finding the deliveries did not finish within ${ms} ms: narrow the filter (a destination, a time range, an event type).`, { timeout_ms: ms });
  return withStatementTimeout(ctx.em, ms, query, tooBroad);
}

/** The current deliveries (no newer one for the same event and destination) that the filter selects, oldest first. */
function targetsQuery(ctx: ProjectContext, kind: (typeof BULK_KINDS)[number], f: BulkFilter, limit: number): [string, Binding[]] {
  const where: string[] = ['d.project_id = ?', 'not exists (select 1 from deliveries r where r.event_id = d.event_id and r.destination_id = d.destination_id and r.id > d.id)'];
  const args: Binding[] = [ctx.project.id];
  const add = (sql: string, ...values: Binding[]) => (where.push(sql), args.push(...values));
  if (kind === 'cancel') add(`d.status in ('queued', 'retrying')`);
  // An issue's retry also takes the deliveries waiting for their next attempt: a replay supersedes them (docs/alerts.md#issues).
  else if (f.issue_id && !f.status) add(`d.status in ('failed', 'retrying')`);
  else add('d.status = ?', f.status ?? 'failed');
  if (f.issue_id) {
    add(
      'd.destination_id = (select destination_id from issues where id = ? and project_id = d.project_id) and d.event_id in (select event_id from issue_events where issue_id = ?)',
      f.issue_id,
      f.issue_id,
    );
  }
  if (f.destination_id) add('d.destination_id = ?', f.destination_id);
  if (f.endpoint_id) add('d.endpoint_id = ?', f.endpoint_id);
  if (f.created_after) add('d.created_at >= ?', new Date(f.created_after));
  if (f.created_before) add('d.created_at < ?', new Date(f.created_before));
  if (f.event_type !== undefined) add('e.event_type = ?', f.event_type);
  if (f.event_type_prefix !== undefined) add(`e.event_type like ? escape '!'`, `${f.event_type_prefix.replace(/[!%_]/g, '!$&')}%`);
  return [`select d.id from deliveries d join events e on e.id = d.event_id where ${where.join(' and ')} order by d.id limit ?`, [...args, limit]];
}

/** How many deliveries the action would touch now (shown before confirming). */
export async function previewBulkAction(ctx: ProjectContext, input: unknown): Promise<z.infer<typeof bulkPreviewView>> {
  const { kind, filter } = parseInput(bulkPreviewInput, input);
  const [sql, args] = targetsQuery(ctx, kind, filter, MAX_TARGETS + 1);
  const [row] = await findingTargets(ctx, (em) => em.execute<Array<{ n: number }>>(`select count(*)::int as n from (${sql}) t`, args));
  return { count: Math.min(row.n, MAX_TARGETS + 1), max: MAX_TARGETS };
}

interface BulkRow {
  id: string;
  project_id: string;
  kind: (typeof BULK_KINDS)[number];
  filter: BulkFilter;
  idempotency_key: string;
  status: BulkActionView['status'];
  stopped_reason: string | null;
  created_by: string | null;
  created_by_api_key: string | null;
  target_ids: string[];
  done: number;
  applied: number;
  created_at: Date;
  updated_at: Date;
}

function toView(r: BulkRow): BulkActionView {
  return {
    id: r.id,
    kind: r.kind,
    filter: r.filter,
    idempotency_key: r.idempotency_key,
    status: r.status,
    stopped_reason: r.stopped_reason,
    total: r.target_ids.length,
    done: r.done,
    applied: r.applied,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

/** Postgres hands `uuid[]` back as a `{a,b}` string unless its type parser is registered. */
function parseIds(value: string[] | string): string[] {
  if (Array.isArray(value)) return value;
  const inner = value.replace(/^\{|\}$/g, '');
  return inner ? inner.split(',') : [];
}

async function readRow(em: EntityManager, projectId: string, where: string, args: Binding[]): Promise<BulkRow | null> {
  const [row] = await em.execute<Array<BulkRow & { target_ids: string[] | string }>>(`select * from bulk_actions where project_id = ? and ${where}`, [projectId, ...args]);
  return row ? { ...row, target_ids: parseIds(row.target_ids) } : null;
}

/**
 * Starts a bulk action (202 with its progress), or returns the one this key already started.
 * More than MAX_TARGETS matching deliveries is a 400 `bulk_too_large`: narrow the filter.
 */
export async function startBulkAction(ctx: ProjectContext, input: unknown): Promise<BulkActionView> {
  const { kind, filter, idempotency_key } = parseInput(bulkStartInput, input);
  const existing = await readRow(ctx.em, ctx.project.id, 'idempotency_key = ?', [idempotency_key]);
  if (existing) return sameRequest(existing, kind, filter);
  const [sql, args] = targetsQuery(ctx, kind, filter, MAX_TARGETS + 1);
  const rows = await findingTargets(ctx, (em) => em.execute<Array<{ id: string }>>(sql, args));
  if (rows.length > MAX_TARGETS) {
    throw new ValidationError(`More than ${MAX_TARGETS} deliveries match: narrow the filter (destination, time range, event type).`, { max: MAX_TARGETS }, 'bulk_too_large');
  }
  const ids = rows.map((r) => r.id);
  const creator = ctx.principal;
  const inserted = await ctx.em.execute(
    `insert into bulk_actions (id, project_id, kind, idempotency_key, filter, target_ids, status, created_by, created_by_api_key)
     values (?, ?, ?, ?, ?::jsonb, ?::uuid[], ?, ?, ?) on conflict (project_id, idempotency_key) do nothing returning id`,
    [
      uuidv7(),
      ctx.project.id,
      kind,
      idempotency_key,
      JSON.stringify(filter),
      `{${ids.join(',')}}`,
      ids.length ? 'running' : 'completed',
      creator?.kind === 'user' ? creator.userId : null,
      creator?.kind === 'api_key' ? creator.apiKeyId : null,
    ],
  );
  // Two requests with one key at the same moment: the loser answers with the winner's action.
  const row = (await readRow(ctx.em, ctx.project.id, 'idempotency_key = ?', [idempotency_key]))!;
  if (!inserted[0]) return sameRequest(row, kind, filter);
  if (row.status === 'running') run(ctx.container, row);
  return toView(row);
}

/** jsonb keeps its own key order: compare filters by sorted keys. */
const canonical = (f: BulkFilter) => JSON.stringify(Object.entries(f).sort(([a], [b]) => a.localeCompare(b)));

function sameRequest(row: BulkRow, kind: string, filter: BulkFilter): BulkActionView {
  if (row.kind !== kind || canonical(row.filter) !== canonical(filter)) {
    throw new ConflictError('This idempotency_key was used for another bulk action.', { bulk_action_id: row.id }, 'idempotency_key_reused');
  }
  return toView(row);
}

/** Progress of a bulk action; a running one that lost its process is resumed. */
export async function getBulkAction(ctx: ProjectContext, id: string): Promise<BulkActionView> {
  const row = isUuid(id) ? await readRow(ctx.em, ctx.project.id, 'id = ?', [id]) : null;
  if (!row) throw new NotFoundError('Bulk action', id);
  // Resumed with its creator's authority, not the reader's (who may be a viewer).
  if (row.status === 'running' && Date.now() - new Date(row.updated_at).getTime() > STALE_MS) run(ctx.container, row);
  return toView(row);
}

const running = new Set<string>();

/** Works through the targets in the background (one runner per action and process). */
function run(container: AppContainer, action: Pick<BulkRow, 'id' | 'project_id'>): void {
  if (running.has(action.id)) return;
  running.add(action.id);
  void work(container, action)
    .catch((err) => container.log.error({ err, bulkActionId: action.id }, 'bulk action stopped; reading it later resumes it'))
    .finally(() => running.delete(action.id));
}

async function work(container: AppContainer, action: Pick<BulkRow, 'id' | 'project_id'>): Promise<void> {
  for (;;) {
    const em = container.orm.em.fork();
    const row = (await readRow(em, action.project_id, 'id = ?', [action.id]))!;
    const creator = await creatorContext(container, em, row);
    if (creator instanceof AppError) {
      await em.execute(`update bulk_actions set status = 'stopped', stopped_reason = ?, updated_at = now() where id = ?`, [creator.message, row.id]);
      return;
    }
    const batch = row.target_ids.slice(row.done, row.done + BATCH);
    let applied = 0;
    for (const deliveryId of batch) applied += (await applyOne(creator, row.kind, deliveryId)) ? 1 : 0;
    const done = row.done + batch.length;
    await em.execute(`update bulk_actions set done = ?, applied = applied + ?, status = ?, updated_at = now() where id = ?`, [
      done,
      applied,
      done >= row.target_ids.length ? 'completed' : 'running',
      row.id,
    ]);
    if (done >= row.target_ids.length) return;
  }
}

/**
 * The creator's authority in the action's project as of now (a developer or above, or an API key
 * that is not revoked), or the refusal that stops the action: the creator was removed or demoted,
 * or the key revoked.
 */
async function creatorContext(container: AppContainer, em: EntityManager, row: BulkRow): Promise<ProjectContext | AppError> {
  const principal: Principal | null = row.created_by
    ? { kind: 'user', userId: row.created_by }
    : row.created_by_api_key
      ? await apiKeyPrincipal(em, { id: row.created_by_api_key })
      : null;
  if (!principal) return new ForbiddenError('The API key that started this bulk action was revoked.', undefined, 'creator_lost_access');
  try {
    return await authorize({ em, container, principal, requestId: `bulk-action:${row.id}` }, { scope: 'project', permission: 'write' }, { projectId: row.project_id });
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return new ForbiddenError(`The member who started this bulk action may no longer run it: ${err.message}`, undefined, 'creator_lost_access');
    throw err;
  }
}

/** Retries or cancels one target; false when it is no longer current (retry) or cancelable (cancel). */
async function applyOne(ctx: ProjectContext, kind: (typeof BULK_KINDS)[number], deliveryId: string): Promise<boolean> {
  if (kind === 'cancel') {
    try {
      await cancelDelivery(ctx, deliveryId);
      return true;
    } catch (err) {
      if (err instanceof AppError && (err.code === 'delivery_not_cancelable' || err.code === 'not_found')) return false;
      throw err;
    }
  }
  const [current] = await ctx.em.execute<Array<{ event_id: string; destination_id: string }>>(
    `select d.event_id, d.destination_id from deliveries d where d.id = ?
        and not exists (select 1 from deliveries r where r.event_id = d.event_id and r.destination_id = d.destination_id and r.id > d.id)`,
    [deliveryId],
  );
  if (!current) return false;
  await replayEventToDestination(ctx, current.event_id, current.destination_id);
  return true;
}

/** Force-retry: a new delivery of this delivery's event to its destination, whatever its status (a successful one included). */
export async function forceRetryDelivery(ctx: ProjectContext, deliveryId: string): Promise<Delivery> {
  const delivery = await getDelivery(ctx, deliveryId);
  return replayEventToDestination(ctx, delivery.event.id, delivery.destination.id);
}
