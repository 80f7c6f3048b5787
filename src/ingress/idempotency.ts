import { ValidationError } from '../common/errors';
import type { EndpointProvider } from '../common/types';
import { getPath } from '../conditions/field-path';
import type { Headers } from './auth';

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

function text(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number') return String(value);
  return undefined;
}

/**
 * docs/ingress.md#duplicates: `X-Idempotency-Key`, else the provider's own delivery id
 * (`X-CodehostA-Delivery`, or for an endpoint bound to that provider: payload
 * `id` for payments_a, `event_id` for chat_a, `webhookId` for tracker_b).
 * Null when the request carries none. Unique per endpoint (a DB unique index).
 */
export function deriveIdempotencyKey(provider: EndpointProvider | null, headers: Headers, body: unknown): string | null {
  const key =
    text(headers['x-idempotency-key']) ??
    text(headers['x-codehosta-delivery']) ??
    (provider === 'payments_a' ? text(getPath(body, ['id'])) : undefined) ??
    (provider === 'chat_a' ? text(getPath(body, ['event_id'])) : undefined) ??
    (provider === 'tracker_b' ? text(getPath(body, ['webhookId'])) : undefined);
  if (key !== undefined && key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new ValidationError(`The idempotency key is longer than ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`, { field: 'X-Idempotency-Key' }, 'invalid_idempotency_key');
  }
  if (key?.includes('\u0000')) {
    throw new ValidationError('The idempotency key contains a NUL character (\\u0000), which cannot be stored.', { field: 'X-Idempotency-Key' }, 'invalid_idempotency_key');
  }
  return key ?? null;
}
