import { z } from 'zod';
import { ATTEMPT_STATUSES, DELIVERY_STATUSES } from '../common/types';
import type { Config } from '../config/config';
import { deliveryWorkflowId, workflowUrl } from '../temporal/delivery-workflows';
import type { DeliveryAttempt } from './delivery-attempt.entity';
import type { Delivery } from './delivery.entity';

/** The wire forms of deliveries and their attempts, shared by REST, GraphQL and subscriptions. */

const iso = (d: Date | string | null | undefined): string | null => (d ? new Date(d).toISOString() : null);

export const deliveryView = z.object({
  id: z.uuid(),
  event_id: z.uuid(),
  destination_id: z.uuid(),
  endpoint_id: z.uuid(),
  project_id: z.uuid(),
  status: z.enum(DELIVERY_STATUSES),
  attempt_count: z.number().int(),
  next_retry_at: z.iso.datetime().nullable(),
  replay_of_id: z.uuid().nullable().describe('The delivery this one replays; null for the first delivery of the event'),
  dead_lettered_at: z.iso.datetime().nullable().describe('Set when the last attempt failed (the delivery is in the dead-letter queue)'),
  completed_at: z.iso.datetime().nullable(),
  workflow_id: z.string().describe('The Temporal workflow that runs this delivery (`delivery-<id>`): search it in the Temporal UI or with `temporal workflow describe --workflow-id`'),
  workflow_url: z.url().nullable().describe("The workflow's page in the Temporal web UI; null when the service does not know the UI's address (TEMPORAL_UI_URL)"),
  note: z.string().nullable().describe('What the relay did to this delivery outside its attempts: its Temporal workflow ended without recording an outcome (the delivery was then dead-lettered or canceled), or was lost and started again with its attempts kept; null when nothing'),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type DeliveryView = z.infer<typeof deliveryView>;

/** What a delivery's view needs of the configuration: where its workflow opens in the Temporal UI. */
export type WorkflowUi = Pick<Config, 'TEMPORAL_UI_URL' | 'TEMPORAL_NAMESPACE'>;

export function toDeliveryView(d: Delivery, ui: WorkflowUi): DeliveryView {
  const workflowId = deliveryWorkflowId(d.id);
  return {
    id: d.id,
    event_id: d.event.id,
    destination_id: d.destination.id,
    endpoint_id: d.endpointId,
    project_id: d.projectId,
    status: d.status,
    attempt_count: d.attemptCount,
    next_retry_at: iso(d.nextRetryAt),
    replay_of_id: d.replayOfId ?? null,
    dead_lettered_at: iso(d.deadLetteredAt),
    completed_at: iso(d.completedAt),
    workflow_id: workflowId,
    workflow_url: workflowUrl(ui, workflowId),
    note: d.note ?? null,
    created_at: iso(d.createdAt)!,
    updated_at: iso(d.updatedAt)!,
  };
}

export const attemptView = z.object({
  id: z.uuid(),
  delivery_id: z.uuid().describe('The delivery (and so the replay) this attempt belongs to'),
  event_id: z.uuid(),
  destination_id: z.uuid(),
  attempt_number: z.number().int().describe('1-based within its delivery'),
  status: z.enum(ATTEMPT_STATUSES).describe('rate_limited: the answer (a 429, a 503 with Retry-After) was waited out; not counted towards max_attempts'),
  status_code: z.number().int().nullable(),
  response_body: z.string().nullable().describe('First 4096 bytes of the response'),
  response_body_truncated: z.boolean(),
  response_headers: z.record(z.string(), z.string()).nullable(),
  error: z.string().nullable(),
  latency_ms: z.number().int().nullable(),
  next_retry_at: z.iso.datetime().nullable(),
  payload_sent: z.unknown().describe('The body actually sent'),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type AttemptView = z.infer<typeof attemptView>;

/** Accepts the entity or a raw row already mapped to entity field names (subscriptions read rows with SQL). */
export function toAttemptView(a: Omit<DeliveryAttempt, 'delivery'> & { delivery: { id: string } }): AttemptView {
  return {
    id: a.id,
    delivery_id: a.delivery.id,
    event_id: a.eventId,
    destination_id: a.destinationId,
    attempt_number: a.attemptNumber,
    status: a.status,
    status_code: a.statusCode ?? null,
    response_body: a.responseBody ?? null,
    response_body_truncated: a.responseBodyTruncated,
    response_headers: a.responseHeaders ?? null,
    error: a.error ?? null,
    latency_ms: a.latencyMs ?? null,
    next_retry_at: iso(a.nextRetryAt),
    payload_sent: a.payloadSent ?? null,
    created_at: iso(a.createdAt)!,
    updated_at: iso(a.updatedAt)!,
  };
}
