import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { NotFoundError } from '../common/errors';
import { isUuid } from '../common/ids';
import { cursorFilter, type Page, paginationQuery, toPage } from '../common/pagination';
import type { ProjectContext } from '../common/request-context';
import { EVENT_STATUSES } from '../common/types';
import type { Config } from '../config/config';
import { WebhookEndpoint } from '../endpoints/endpoint.entity';
import { type EndpointView, toEndpointView } from '../endpoints/endpoint.view';
import { replayEvent as replayEventDeliveries } from '../deliveries/delivery-operations.service';
import { deliveryView, toDeliveryView } from '../deliveries/delivery.view';
import { Event } from './event.entity';
import { EVENT_OUTCOMES, type EventOutcomeView, outcomeCondition, outcomesByEventIds, RESPONSE_CLASSES, responseClassCondition } from './event-outcome';
import { containsCondition, searchFields, textCondition, textSearchQuery, withSearchTimeout } from './event-search';
import { type EventListItemView, type EventView, toEventSummaryView, toEventView } from './event.view';

/**
 * Events of the active project (docs/api.md): list with filters and
 * cursor pagination, get with payload and headers, replay. Every query is
 * scoped to `ctx.project.id`; another project's event is a 404.
 */

const timestamp = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp, e.g. 2026-01-31T12:00:00Z' });

export const listEventsQuery = paginationQuery.extend({
  endpoint_id: z.uuid().optional(),
  destination_id: z.uuid().optional().describe('Only events with a delivery to this destination'),
  status: z.enum(EVENT_STATUSES).optional(),
  event_type: z.string().max(500).optional().describe('Exact event type'),
  event_type_prefix: z.string().min(1).max(500).optional().describe('Event types starting with this text, e.g. `pull_request.`'),
  outcome: z.enum(EVENT_OUTCOMES).optional().describe('The deliveries\' outcome summarised (the list\'s `outcome`)'),
  response_class: z.enum(RESPONSE_CLASSES).optional().describe('A current delivery\'s last attempt answered in this class (`none`: no HTTP response)'),
  created_after: timestamp.optional().describe('Inclusive lower bound of created_at'),
  created_before: timestamp.optional().describe('Exclusive upper bound of created_at'),
  ...searchFields,
});
export type ListEventsQuery = z.infer<typeof listEventsQuery>;

const SUMMARY_FIELDS = ['id', 'endpointId', 'projectId', 'organizationId', 'eventType', 'sourceIp', 'idempotencyKey', 'status', 'quarantinedAt', 'quarantineReason', 'createdAt'] as const;

async function findEvents(ctx: ProjectContext, q: ListEventsQuery, withBody: boolean): Promise<Event[]> {
  // A search may read many rows: bounded by RELAY_SEARCH_TIMEOUT_MS (src/events/event-search.ts).
  if (q.contains !== undefined || q.q !== undefined) {
    return withSearchTimeout(ctx.em, ctx.container.config.RELAY_SEARCH_TIMEOUT_MS, async (em) => {
      const tsquery = q.q !== undefined ? await textSearchQuery(em, q.q) : undefined;
      return eventsQuery(em, ctx.project.id, q, withBody, tsquery).getResult();
    });
  }
  return eventsQuery(ctx.em, ctx.project.id, q, withBody).getResult();
}

/** `tsquery`: textSearchQuery of `q.q`, when the search has a text. */
function eventsQuery(em: EntityManager, projectId: string, q: ListEventsQuery, withBody: boolean, tsquery?: string) {
  const qb = em
    .createQueryBuilder(Event, 'e')
    .select(withBody ? ['*', 'payloadText'] : [...SUMMARY_FIELDS])
    .where({
      projectId,
      ...cursorFilter(q),
      ...(q.endpoint_id ? { endpointId: q.endpoint_id } : {}),
      ...(q.status ? { status: q.status } : {}),
      ...(q.event_type !== undefined ? { eventType: q.event_type } : {}),
      ...(q.created_after || q.created_before
        ? { createdAt: { ...(q.created_after ? { $gte: new Date(q.created_after) } : {}), ...(q.created_before ? { $lt: new Date(q.created_before) } : {}) } }
        : {}),
    })
    .orderBy({ id: 'desc' })
    .limit(q.limit + 1);
  if (q.destination_id) {
    qb.andWhere('exists (select 1 from deliveries d where d.event_id = e.id and d.destination_id = ?)', [q.destination_id]);
  }
  if (q.event_type_prefix !== undefined) qb.andWhere(`e.event_type like ? escape '!'`, [`${q.event_type_prefix.replace(/[!%_]/g, '!$&')}%`]);
  if (q.outcome) qb.andWhere(...outcomeCondition(q.outcome));
  if (q.response_class) qb.andWhere(...responseClassCondition(q.response_class));
  if (q.contains !== undefined) qb.andWhere(...containsCondition(q.contains));
  // Without its tsquery a text search matches nothing rather than everything.
  if (q.q !== undefined) qb.andWhere(...textCondition(q.q, tsquery ?? ''));
  return qb;
}

/** Newest first; items without payload and headers, with their deliveries' outcome. */
export async function listEvents(ctx: ProjectContext, q: ListEventsQuery): Promise<Page<EventListItemView>> {
  const page = toPage(await findEvents(ctx, q, false), q, toEventSummaryView);
  const outcomes = await outcomesByEventIds(ctx.em, ctx.project.id, page.data.map((e) => e.id));
  return { ...page, data: page.data.map((e, i) => ({ ...e, ...outcomes[i] })) };
}

/** The same list with payload and headers (GraphQL, where the client picks the fields). */
export async function listEventsWithBody(ctx: ProjectContext, q: ListEventsQuery): Promise<Page<EventView>> {
  return toPage(await findEvents(ctx, q, true), q, toEventView);
}

/** `exactPayload` also loads the payload's stored text (what the event's answers show). */
export async function findEvent(ctx: ProjectContext, eventId: string, { exactPayload = false } = {}): Promise<Event> {
  const populate = exactPayload ? (['payloadText'] as const) : [];
  const event = isUuid(eventId) ? await ctx.em.findOne(Event, { id: eventId, projectId: ctx.project.id }, { populate }) : null;
  if (!event) throw new NotFoundError('Event', eventId);
  return event;
}

export async function getEvent(ctx: ProjectContext, eventId: string): Promise<EventView & EventOutcomeView> {
  const event = await findEvent(ctx, eventId, { exactPayload: true });
  const [outcome] = await outcomesByEventIds(ctx.em, ctx.project.id, [event.id]);
  return { ...toEventView(event), ...outcome };
}

/** Batch look-up for the `Event.endpoint` DataLoader; `projectId` is that of events an authorized resolver returned. */
export async function endpointsByIds(em: EntityManager, config: Pick<Config, 'publicBaseUrl'>, projectId: string, ids: readonly string[]): Promise<Array<EndpointView | null>> {
  const rows = await em.find(WebhookEndpoint, { id: { $in: [...ids] }, project: projectId });
  const byId = new Map(rows.map((e) => [e.id, toEndpointView(e, config)]));
  return ids.map((id) => byId.get(id) ?? null);
}

export const replayResultView = z.object({
  event_id: z.uuid(),
  deliveries: z.array(deliveryView).describe('The new deliveries, one per linked active destination that accepts the event type'),
});
export type ReplayResult = z.infer<typeof replayResultView>;

/**
 * Re-queues the event to every destination linked to its endpoint now, with
 * the current link configuration (docs/delivery.md#replay-cancel-and-bulk-actions). Each
 * replay is a new delivery whose attempts count from 1; a delivery of the same
 * event and destination still waiting for a retry is superseded (canceled).
 */
export async function replayEvent(ctx: ProjectContext, eventId: string): Promise<ReplayResult> {
  const deliveries = await replayEventDeliveries(ctx, eventId);
  return { event_id: eventId, deliveries: deliveries.map((d) => toDeliveryView(d, ctx.container.config)) };
}
