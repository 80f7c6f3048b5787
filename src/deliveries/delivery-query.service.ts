import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { cursorFilter, type Page, paginationQuery, toPage } from '../common/pagination';
import type { ProjectContext } from '../common/request-context';
import { ATTEMPT_STATUSES, DELIVERY_STATUSES } from '../common/types';
import { Destination } from '../destinations/destination.entity';
import { type DestinationView, toDestinationView } from '../destinations/destination.view';
import { deadLetterQuery, getDelivery as findDelivery, listDeadLetters as findDeadLetters } from './delivery-operations.service';
import { DeliveryAttempt } from './delivery-attempt.entity';
import { Delivery } from './delivery.entity';
import { type AttemptView, type DeliveryView, type WorkflowUi, toAttemptView, toDeliveryView } from './delivery.view';

/**
 * Read side of deliveries (docs/api.md): deliveries and attempts by
 * event, destination, endpoint, status, event type and time range, and the
 * dead-letter queue; plus the batch look-ups behind GraphQL's DataLoaders.
 * Writes (replay, cancel) live in delivery-operations.service.ts.
 */

const timestamp = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp, e.g. 2026-01-31T12:00:00Z' });
const timeRange = {
  created_after: timestamp.optional().describe('Inclusive lower bound of created_at'),
  created_before: timestamp.optional().describe('Exclusive upper bound of created_at'),
};
function createdAt(q: { created_after?: string; created_before?: string }) {
  if (!q.created_after && !q.created_before) return {};
  return { createdAt: { ...(q.created_after ? { $gte: new Date(q.created_after) } : {}), ...(q.created_before ? { $lt: new Date(q.created_before) } : {}) } };
}

export const listDeliveriesQuery = paginationQuery.extend({
  event_id: z.uuid().optional(),
  destination_id: z.uuid().optional(),
  endpoint_id: z.uuid().optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
  ...timeRange,
});
export type ListDeliveriesQuery = z.infer<typeof listDeliveriesQuery>;

export async function listDeliveries(ctx: ProjectContext, q: ListDeliveriesQuery): Promise<Page<DeliveryView>> {
  const rows = await ctx.em.find(
    Delivery,
    {
      projectId: ctx.project.id,
      ...cursorFilter(q),
      ...(q.event_id ? { event: q.event_id } : {}),
      ...(q.destination_id ? { destination: q.destination_id } : {}),
      ...(q.endpoint_id ? { endpointId: q.endpoint_id } : {}),
      ...(q.status ? { status: q.status } : {}),
      ...createdAt(q),
    },
    { orderBy: { id: 'desc' }, limit: q.limit + 1 },
  );
  return toPage(rows, q, (d) => toDeliveryView(d, ctx.container.config));
}

export async function getDelivery(ctx: ProjectContext, deliveryId: string): Promise<DeliveryView> {
  return toDeliveryView(await findDelivery(ctx, deliveryId), ctx.container.config);
}

export const listAttemptsQuery = paginationQuery.extend({
  event_id: z.uuid().optional(),
  delivery_id: z.uuid().optional(),
  destination_id: z.uuid().optional(),
  endpoint_id: z.uuid().optional(),
  status: z.enum(ATTEMPT_STATUSES).optional(),
  event_type: z.string().max(500).optional(),
  ...timeRange,
});
export type ListAttemptsQuery = z.infer<typeof listAttemptsQuery>;

/** Attempts, newest first; each names its delivery, so replays are told apart. */
export async function listAttempts(ctx: ProjectContext, q: ListAttemptsQuery): Promise<Page<AttemptView>> {
  const rows = await ctx.em.find(
    DeliveryAttempt,
    {
      ...cursorFilter(q),
      delivery: {
        projectId: ctx.project.id,
        ...(q.delivery_id ? { id: q.delivery_id } : {}),
        ...(q.endpoint_id ? { endpointId: q.endpoint_id } : {}),
        ...(q.event_type !== undefined ? { event: { eventType: q.event_type } } : {}),
      },
      ...(q.event_id ? { eventId: q.event_id } : {}),
      ...(q.destination_id ? { destinationId: q.destination_id } : {}),
      ...(q.status ? { status: q.status } : {}),
      ...createdAt(q),
    },
    { orderBy: { id: 'desc' }, limit: q.limit + 1 },
  );
  return toPage(rows, q, toAttemptView);
}

export const listDeadLettersQuery = deadLetterQuery;
export type ListDeadLettersQuery = z.infer<typeof listDeadLettersQuery>;

/** Failed deliveries that no replay has taken over yet, newest first. */
export async function listDeadLetters(ctx: ProjectContext, q: ListDeadLettersQuery): Promise<Page<DeliveryView>> {
  const page = await findDeadLetters(ctx, q);
  return { data: page.data.map((d) => toDeliveryView(d, ctx.container.config)), next_cursor: page.next_cursor };
}

/**
 * Batch look-ups for DataLoaders: one query for many parents, results in key
 * order. `projectId` is that of parents an authorized resolver already returned.
 */
export async function deliveriesByEventIds(em: EntityManager, ui: WorkflowUi, projectId: string, eventIds: readonly string[]): Promise<DeliveryView[][]> {
  const rows = await em.find(Delivery, { projectId, event: { $in: [...eventIds] } }, { orderBy: { id: 'asc' } });
  return groupBy(eventIds, rows.map((d) => toDeliveryView(d, ui)), (d) => d.event_id);
}

export async function attemptsByDeliveryIds(em: EntityManager, projectId: string, deliveryIds: readonly string[]): Promise<AttemptView[][]> {
  const rows = await em.find(
    DeliveryAttempt,
    { delivery: { id: { $in: [...deliveryIds] }, projectId } },
    { orderBy: { delivery: 'asc', attemptNumber: 'asc' } },
  );
  return groupBy(deliveryIds, rows.map(toAttemptView), (a) => a.delivery_id);
}

export async function destinationsByIds(em: EntityManager, projectId: string, ids: readonly string[]): Promise<Array<DestinationView | null>> {
  const rows = await em.find(Destination, { id: { $in: [...ids] }, project: projectId });
  const byId = new Map(rows.map((d) => [d.id, toDestinationView(d)]));
  return ids.map((id) => byId.get(id) ?? null);
}

function groupBy<T>(keys: readonly string[], items: T[], keyOf: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>(keys.map((k) => [k, []]));
  for (const item of items) groups.get(keyOf(item))?.push(item);
  return keys.map((k) => groups.get(k)!);
}
