import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '../common/errors';
import { isUuid } from '../common/ids';
import type { ProjectContext } from '../common/request-context';
import { hmacHex } from '../common/secret-box';
import { WebhookEndpoint } from '../endpoints/endpoint.entity';
import { endpointSigningSecret } from '../endpoints/system-endpoint';
import { ingressFor } from '../ingress/ingress.service';

/**
 * `relay trigger` (docs/cli.md): an event sent through the real ingress
 * pipeline of one source (authentication, event type, idempotency, rate cap,
 * filters, store, fan-out: a running `listen` gets it like any other event),
 * signed with the source's current secret in the X-Hub-Signature-256 scheme
 * every endpoint accepts whatever its provider (as the dashboard's Test
 * button), or a stored event's exact body and headers sent again as a new event.
 */
const fields = {
  source: z.string().trim().min(1).max(100).nullish(),
  body: z.string().max(1_048_576).nullish(),
  eventType: z.string().trim().min(1).max(200).nullish(),
  headers: z.record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be header names'), z.string().max(8192)).nullish(),
  eventId: z.string().nullish(),
};
export const triggerEventInput = z
  .object(fields)
  .refine((v) => v.source || v.eventId, { message: 'give a source (slug) or an eventId to send again', path: ['source'] });
export type TriggerEventInput = z.infer<typeof triggerEventInput>;

/** `POST /v1/events/trigger`: the same input in the REST wire format (snake_case). */
export const triggerEventBody = z
  .object({ source: fields.source, body: fields.body, event_type: fields.eventType, headers: fields.headers, event_id: fields.eventId })
  .refine((v) => v.source || v.event_id, { message: 'give a source (slug) or an event_id to send again', path: ['source'] });
export const triggeredEventView = z.object({ event_id: z.uuid() });

/** Headers never copied from a stored event or the caller: framing, hop-by-hop, and the ones the trigger sets itself. */
const REPLACED = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'authorization', 'x-hub-signature', 'x-hub-signature-256', 'x-idempotency-key', 'x-codehosta-delivery']);

/** The sample's type when the caller names none: sent as X-Event-Type too, so the event is typed whatever the source reads types from. */
const SAMPLE_EVENT_TYPE = 'relay.trigger';
const sampleBody = (eventType: string) =>
  JSON.stringify({ id: `trigger_${randomUUID()}`, type: eventType, message: 'Sent with relay trigger.', sent_at: new Date().toISOString() });

async function storedEvent(ctx: ProjectContext, eventId: string): Promise<{ endpointId: string; body: string; headers: Record<string, string> }> {
  const rows = isUuid(eventId)
    ? await ctx.em.getConnection().execute<Array<{ endpoint_id: string; body: string; headers: Record<string, string> | null }>>(
        'select endpoint_id, payload::text as body, headers from events where id = ? and project_id = ?',
        [eventId, ctx.project.id],
      )
    : [];
  if (!rows[0]) throw new NotFoundError('Event', eventId);
  return { endpointId: rows[0].endpoint_id, body: rows[0].body, headers: rows[0].headers ?? {} };
}

export async function triggerEvent(ctx: ProjectContext, input: TriggerEventInput): Promise<{ event_id: string }> {
  const resent = input.eventId ? await storedEvent(ctx, input.eventId) : null;
  const endpoint = input.source
    ? await ctx.em.findOne(WebhookEndpoint, { project: ctx.project.id, slug: input.source })
    : await ctx.em.findOne(WebhookEndpoint, { project: ctx.project.id, id: resent!.endpointId });
  if (!endpoint) throw new NotFoundError('Endpoint', input.source ?? resent!.endpointId);
  const secret = endpointSigningSecret(endpoint, ctx.container.secrets, 'be sent a triggered event');
  if (!endpoint.isActive) throw new ConflictError(`The source ${endpoint.slug} is inactive: activate it to receive events.`, { field: 'is_active' }, 'endpoint_inactive');

  const sample = input.body == null && !resent;
  const eventType = input.eventType ?? (sample ? SAMPLE_EVENT_TYPE : null);
  const body = input.body ?? resent?.body ?? sampleBody(eventType ?? SAMPLE_EVENT_TYPE);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'relay-trigger' };
  for (const [name, value] of Object.entries({ ...resent?.headers, ...input.headers })) {
    if (!REPLACED.has(name.toLowerCase())) headers[name.toLowerCase()] = String(value);
  }
  if (eventType) headers['x-event-type'] = eventType;
  // A new event each time (a stored event's own idempotency key or provider id would make it a duplicate).
  headers['x-idempotency-key'] = input.headers?.['x-idempotency-key'] ?? input.headers?.['X-Idempotency-Key'] ?? `trigger_${randomUUID()}`;
  const raw = Buffer.from(body, 'utf8');
  if (raw.length === 0) throw new ValidationError('The payload is empty: give a JSON body.', { field: 'body' });
  headers['x-hub-signature-256'] = `sha256=${hmacHex(secret, raw)}`;
  const { ingress, ready } = ingressFor(ctx.container);
  await ready;
  return ingress.receiveBuffered({ slug: endpoint.slug, headers, raw, sourceIp: ctx.clientIp ?? null });
}
