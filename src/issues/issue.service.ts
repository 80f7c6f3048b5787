import { LoadStrategy } from '@mikro-orm/core';
import { z } from 'zod';
import { type BulkActionView, startBulkAction } from '../bulk-actions/bulk-action.service';
import { ConflictError, NotFoundError } from '../common/errors';
import { isUuid } from '../common/ids';
import { cursorFilter, type Page, paginationQuery, toPage } from '../common/pagination';
import type { ProjectContext } from '../common/request-context';
import { parseInput } from '../common/validation';
import { acceptChanges, lockIssueSchema } from '../schemas/schema-accept';
import { ISSUE_CAUSES } from './issue-cause';
import { Issue, ISSUE_STATES } from './issue.entity';
import { type IssueCountsView, type IssueView, toIssueView } from './issue.view';

/**
 * Issues (docs/alerts.md#issues): failures grouped by destination and cause. The delivery path opens,
 * grows and resolves them (SQL functions, see migrations/…_issues.ts); users read them, change their
 * state and retry every delivery they affected. REST and GraphQL both call these.
 */

export const listIssuesQuery = paginationQuery.extend({
  state: z.enum(ISSUE_STATES).optional(),
  destination_id: z.uuid().optional(),
  endpoint_id: z.uuid().optional().describe("A source's issues (schema_changed, source_silent)"),
  cause: z.enum(ISSUE_CAUSES).optional(),
});

export const updateIssueInput = z.object({
  state: z
    .enum(ISSUE_STATES)
    .describe('acknowledged: someone is on it; ignored: never alert about it; resolved: done (a new failure opens a new issue); open. Acknowledging or resolving a schema_changed issue accepts its changes'),
});

export const retryIssueInput = z.object({
  idempotency_key: z.string().min(1).max(200).optional().describe('A key per user intent; default: one per issue and failure count, so a double click starts one action'),
});

/** The destination (or source) in a second query: a joined load would select its circuit formula as a column. */
const withDestination = { populate: ['destination', 'endpoint'], strategy: LoadStrategy.SELECT_IN } as const;

async function findIssue(ctx: ProjectContext, id: string): Promise<Issue> {
  const issue = isUuid(id) ? await ctx.em.findOne(Issue, { id, project: ctx.project.id }, withDestination) : null;
  if (!issue) throw new NotFoundError('Issue', id);
  return issue;
}

export async function listIssues(ctx: ProjectContext, query: unknown): Promise<Page<IssueView>> {
  const q = parseInput(listIssuesQuery, query ?? {}, 'query');
  const where = {
    project: ctx.project.id,
    ...(q.state ? { state: q.state } : {}),
    ...(q.destination_id ? { destination: q.destination_id } : {}),
    ...(q.endpoint_id ? { endpoint: q.endpoint_id } : {}),
    ...(q.cause ? { cause: q.cause } : {}),
  };
  const rows = await ctx.em.find(Issue, { $and: [where, cursorFilter(q)] }, { ...withDestination, orderBy: { id: 'desc' }, limit: q.limit + 1 });
  return toPage(rows, q, toIssueView);
}

export async function getIssue(ctx: ProjectContext, id: string): Promise<IssueView> {
  return toIssueView(await findIssue(ctx, id));
}

/** How many issues the project has in each state (the dashboard's navigation shows the open ones). */
export async function countIssues(ctx: ProjectContext): Promise<IssueCountsView> {
  const rows = await ctx.em.getConnection().execute<Array<{ state: string; n: number }>>(
    'select state, count(*)::int as n from issues where project_id = ? group by state',
    [ctx.project.id],
  );
  const counts: IssueCountsView = { open: 0, acknowledged: 0, ignored: 0, resolved: 0 };
  for (const r of rows) counts[r.state as keyof IssueCountsView] = r.n;
  return counts;
}

/**
 * A user's change of state; resolving a destination's issue emits `relay.issue.resolved` like an
 * automatic resolution. Acknowledging or resolving a `schema_changed` issue accepts its changes (their
 * new shape becomes the expected one: docs/schemas.md). Reopening a resolved issue while a newer one of
 * the same subject and cause is active is a 409.
 */
export async function updateIssue(ctx: ProjectContext, id: string, input: unknown): Promise<IssueView> {
  const { state } = parseInput(updateIssueInput, input);
  const issue = await findIssue(ctx, id);
  await ctx.em.transactional(async (em) => {
    // A schema's row is locked before the issue (as the learner does): see src/schemas/schema-accept.ts.
    const schemaId = issue.cause === 'schema_changed' ? await lockIssueSchema(em, issue.id) : null;
    const rows = await em.getConnection().execute<Array<{ id: string | null }>>('select (relay_set_issue_state(?, ?)).id', [issue.id, state]);
    if (!rows[0]?.id) {
      const subject = issue.destination ? { destination_id: issue.destination.id } : { endpoint_id: issue.endpoint!.id, event_type: issue.eventType ?? null };
      throw new ConflictError(
        `A newer issue of this ${issue.destination ? 'destination' : 'source'} with the same cause (${issue.cause}) is active: act on that one instead.`,
        { cause: issue.cause, ...subject },
        'issue_active_exists',
      );
    }
    if (schemaId && (state === 'acknowledged' || state === 'resolved')) await acceptChanges(em, schemaId, issue.id);
  });
  await ctx.em.refresh(issue);
  return toIssueView(issue);
}

/**
 * Retries every delivery the issue affected: a bulk retry (src/bulk-actions) of the current
 * deliveries of its events to its destination that failed or wait for a retry. Returns the bulk
 * action, whose progress GET /v1/bulk-actions/{id} reports.
 */
export async function retryIssue(ctx: ProjectContext, id: string, input: unknown): Promise<BulkActionView> {
  const { idempotency_key } = parseInput(retryIssueInput, input ?? {});
  const issue = await findIssue(ctx, id);
  if (!issue.destination) {
    throw new ConflictError(`A source's issue (${issue.cause}) has no deliveries to retry.`, { cause: issue.cause }, 'issue_not_retryable');
  }
  return startBulkAction(ctx, {
    kind: 'retry',
    filter: { issue_id: issue.id },
    idempotency_key: idempotency_key ?? `issue:${issue.id}:${issue.failureCount}`,
  });
}
