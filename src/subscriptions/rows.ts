import type { AttemptView } from '../deliveries/delivery.view';
import { toAttemptView } from '../deliveries/delivery.view';
import type { EventView } from '../events/event.view';
import { toEventView } from '../events/event.view';

/** SQL rows (snake_case columns) to the wire views, for the live feed. */

type Row = Record<string, unknown>;
const date = (v: unknown) => (v == null ? null : new Date(v as string));

export function eventRowView(r: Row): EventView {
  return toEventView({
    id: r.id as string,
    endpointId: r.endpoint_id as string,
    projectId: r.project_id as string,
    organizationId: r.organization_id as string,
    eventType: r.event_type as string,
    payload: null,
    // The stored text (numbers exact), sent as is (src/common/raw-json.ts).
    payloadText: r.payload_text as string,
    headers: r.headers as Record<string, string>,
    sourceIp: r.source_ip as string | null,
    idempotencyKey: r.idempotency_key as string | null,
    status: r.status as EventView['status'],
    createdAt: date(r.created_at)!,
  });
}

export function attemptRowView(r: Row): AttemptView {
  return toAttemptView({
    id: r.id as string,
    delivery: { id: r.delivery_id as string },
    eventId: r.event_id as string,
    destinationId: r.destination_id as string,
    attemptNumber: r.attempt_number as number,
    status: r.status as AttemptView['status'],
    statusCode: r.status_code as number | null,
    responseBody: r.response_body as string | null,
    responseBodyTruncated: Boolean(r.response_body_truncated),
    responseHeaders: r.response_headers as Record<string, string> | null,
    error: r.error as string | null,
    latencyMs: r.latency_ms as number | null,
    nextRetryAt: date(r.next_retry_at),
    payloadSent: r.payload_sent,
    createdAt: date(r.created_at)!,
    updatedAt: date(r.updated_at)!,
  });
}
