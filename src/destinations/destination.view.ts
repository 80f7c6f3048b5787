import { z } from 'zod';
import { DESTINATION_TYPES, type RetryPolicy } from '../common/types';
import { SIGNATURE_SCHEMES } from '../sending/signature';
import { type Destination, DESTINATION_PAUSE_REASONS } from './destination.entity';

/**
 * The wire form of a destination. Secrets (webhook URL, bot token, signing
 * secret) are write-only (docs/concepts.md#secrets): only whether each is set, and the
 * webhook URL's host, are shown; a secret the service generated is shown once.
 */
export const retryPolicyView = z.object({
  max_attempts: z.number().int().describe('Total attempts, including the first'),
  backoff: z.array(z.number().int()).describe('Seconds between attempts; the last value repeats'),
});

export const circuitView = z.object({
  state: z.enum(['closed', 'open', 'half_open']).describe('open: attempts are deferred until a probe gets an answer; half_open: the probe is in flight'),
  consecutive_failures: z.number().int().describe('Connection errors and timeouts in a row'),
  opened_at: z.iso.datetime().nullable(),
  next_probe_at: z.iso.datetime().nullable().describe('When an open circuit lets one probe attempt through'),
  last_error: z.string().nullable(),
});
export type CircuitView = z.infer<typeof circuitView>;

const iso = (value: string | null) => (value ? new Date(value).toISOString() : null);

export const destinationView = z.object({
  id: z.uuid(),
  project_id: z.uuid(),
  name: z.string(),
  type: z.enum(DESTINATION_TYPES),
  webhook_host: z.string().nullable().describe('Host of the write-only webhook_url'),
  has_webhook_url: z.boolean(),
  has_bot_token: z.boolean(),
  signing_secret: z.string().nullable().describe('Shown once, in the answer that generated it; null otherwise'),
  has_signing_secret: z.boolean(),
  signature_scheme: z.enum(SIGNATURE_SCHEMES).describe('service: X-{prefix}-Timestamp and X-{prefix}-Signature; standard: Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature)'),
  previous_secret_expires_at: z.iso.datetime().nullable().describe('While set, deliveries also carry the previous-secret signature'),
  guild_id: z.string().nullable(),
  channel_id: z.string().nullable(),
  retry_policy: retryPolicyView,
  event_types: z.array(z.string()),
  is_active: z.boolean(),
  paused_reason: z
    .enum(DESTINATION_PAUSE_REASONS)
    .nullable()
    .describe('Why it is paused: user, or receiver_gone (it answered 410 Gone); null while active. Setting is_active to true resumes it'),
  paused_at: z.iso.datetime().nullable(),
  max_concurrency: z.number().int().nullable().describe('Attempts in flight at once across all workers; null: the service default'),
  circuit: circuitView.describe('The circuit breaker (docs/delivery.md "Retries, timeouts and what receivers can say")'),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type DestinationView = z.infer<typeof destinationView> & { retry_policy: RetryPolicy };

/** `generatedSecret`: only in the answer of the call that generated it. */
export function toDestinationView(d: Destination, generatedSecret: string | null = null): DestinationView {
  const overlapEnd = d.signingSecretEnc ? d.previousSecretExpiresAt : null;
  return {
    id: d.id,
    project_id: d.project.id,
    name: d.name,
    type: d.type,
    webhook_host: d.webhookUrlEnc ? (d.webhookHost ?? null) : null,
    has_webhook_url: !!d.webhookUrlEnc,
    has_bot_token: !!d.botTokenEnc,
    signing_secret: generatedSecret,
    has_signing_secret: !!d.signingSecretEnc,
    signature_scheme: d.signatureScheme,
    previous_secret_expires_at: overlapEnd && overlapEnd.getTime() > Date.now() ? overlapEnd.toISOString() : null,
    guild_id: d.guildId ?? null,
    channel_id: d.channelId ?? null,
    retry_policy: { max_attempts: d.retryPolicy.max_attempts, backoff: [...d.retryPolicy.backoff] },
    event_types: [...d.eventTypes],
    is_active: d.isActive,
    paused_reason: d.isActive ? null : (d.pausedReason ?? 'user'),
    paused_at: d.isActive ? null : (d.pausedAt?.toISOString() ?? null),
    max_concurrency: d.maxConcurrency ?? null,
    circuit: d.circuit
      ? { ...d.circuit, opened_at: iso(d.circuit.opened_at), next_probe_at: iso(d.circuit.next_probe_at) }
      : { state: 'closed', consecutive_failures: 0, opened_at: null, next_probe_at: null, last_error: null },
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}
