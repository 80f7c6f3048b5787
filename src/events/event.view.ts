import { z } from 'zod';
import { RawJson } from '../common/raw-json';
import { EVENT_STATUSES } from '../common/types';
import type { Event } from './event.entity';
import { eventOutcomeFields } from './event-outcome';

/** The wire form of an event, shared by REST, GraphQL and subscriptions. */
export const eventView = z.object({
  id: z.uuid(),
  endpoint_id: z.uuid(),
  project_id: z.uuid(),
  organization_id: z.uuid(),
  event_type: z.string().describe('Empty when no rule yielded a type'),
  payload: z.unknown().describe('The JSON request body as received: the stored text as sent, numbers exact (no rounding to double precision)'),
  headers: z.record(z.string(), z.string()).describe('All request headers'),
  source_ip: z.string().nullable(),
  idempotency_key: z.string().nullable(),
  status: z.enum(EVENT_STATUSES),
  quarantined_at: z.iso.datetime().nullable().describe('Set when the pipeline could not process the event and set it aside undelivered (docs/troubleshooting.md)'),
  quarantine_reason: z.string().nullable().describe('Why the event was quarantined (the database\'s error); null when it was not'),
  created_at: z.iso.datetime(),
});
export type EventView = z.infer<typeof eventView>;

/** List items leave out the (possibly large) payload and headers: `GET /v1/events/{id}` has them. */
export const eventSummaryView = eventView.omit({ payload: true, headers: true });
export type EventSummaryView = z.infer<typeof eventSummaryView>;

/** A list item: the summary with its deliveries' outcome and last response code. */
export const eventListItemView = eventSummaryView.extend(eventOutcomeFields);
export type EventListItemView = z.infer<typeof eventListItemView>;

/** `GET /v1/events/{id}`: the event with its deliveries' outcome. */
export const eventDetailView = eventView.extend(eventOutcomeFields);

type EventFields = Pick<
  Event,
  'id' | 'endpointId' | 'projectId' | 'organizationId' | 'eventType' | 'sourceIp' | 'idempotencyKey' | 'status' | 'quarantinedAt' | 'quarantineReason' | 'createdAt'
>;

export function toEventSummaryView(event: EventFields): EventSummaryView {
  return {
    id: event.id,
    endpoint_id: event.endpointId,
    project_id: event.projectId,
    organization_id: event.organizationId,
    event_type: event.eventType,
    source_ip: event.sourceIp ?? null,
    idempotency_key: event.idempotencyKey ?? null,
    status: event.status,
    quarantined_at: event.quarantinedAt ? new Date(event.quarantinedAt).toISOString() : null,
    quarantine_reason: event.quarantineReason ?? null,
    created_at: new Date(event.createdAt).toISOString(),
  };
}

export function toEventView(event: EventFields & Pick<Event, 'payload' | 'payloadText' | 'headers'>): EventView {
  // The exact stored text when it was loaded (REST and GraphQL write it as is: src/common/raw-json.ts).
  const payload = event.payloadText != null ? new RawJson(event.payloadText) : event.payload;
  return { ...toEventSummaryView(event), payload, headers: event.headers ?? {} };
}
