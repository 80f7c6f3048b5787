import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ConflictError } from '../common/errors';
import type { ProjectContext } from '../common/request-context';
import { hmacHex } from '../common/secret-box';
import { ingressFor } from '../ingress/ingress.service';
import { findEndpoint } from './endpoint.service';
import { endpointSigningSecret } from './system-endpoint';

export const testEventView = z.object({
  event_id: z.uuid().describe('The stored event; it is delivered like any other'),
});
export type TestEventView = z.infer<typeof testEventView>;

/** The sample body: its own `id` keeps idempotency keys (provider ids included) unique per test. */
function samplePayload(endpointSlug: string): Record<string, unknown> {
  return {
    id: `test_${randomUUID()}`,
    type: 'relay.test',
    message: 'A test event sent from the relay dashboard (or POST /v1/endpoints/{id}/test).',
    endpoint: endpointSlug,
    sent_at: new Date().toISOString(),
  };
}

/**
 * The endpoint's Test button: a sample event through the real ingress pipeline
 * (authentication, event type, idempotency, rate cap, filters, group-commit store,
 * hand-off to delivery), signed with the endpoint's current secret in the
 * X-Hub-Signature-256 scheme that every endpoint accepts, whatever its provider.
 */
export async function sendTestEvent(ctx: ProjectContext, endpointId: string): Promise<TestEventView> {
  const endpoint = await findEndpoint(ctx, endpointId);
  const secret = endpointSigningSecret(endpoint, ctx.container.secrets, 'be sent a test event');
  if (!endpoint.isActive) {
    throw new ConflictError('The endpoint is inactive: activate it to receive events, test ones included.', { field: 'is_active' }, 'endpoint_inactive');
  }
  const raw = Buffer.from(JSON.stringify(samplePayload(endpoint.slug)));
  const { ingress, ready } = ingressFor(ctx.container);
  await ready;
  return ingress.receiveBuffered({
    slug: endpoint.slug,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'relay-test-event',
      'x-relay-test': '1',
      // The Test event's type (docs/ingress.md#event-types: the endpoint's own header, path and rules come first).
      'x-event-type': 'relay.test',
      'x-idempotency-key': `test_${randomUUID()}`,
      'x-hub-signature-256': `sha256=${hmacHex(secret, raw)}`,
    },
    raw,
    sourceIp: ctx.clientIp ?? null,
  });
}
