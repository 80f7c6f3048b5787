import { z } from 'zod';
import type { Config } from '../config/config';
import { ENDPOINT_PROVIDERS, SCHEMA_ALERTS, SILENCE_ALERTS, type TypingRule } from '../common/types';
import type { WebhookEndpoint } from './endpoint.entity';

/** The wire form of an endpoint (source). The signing secret is never returned, except once when generated. */
export const endpointView = z.object({
  id: z.uuid(),
  project_id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  ingress_url: z.string().nullable().describe('POST webhooks here; null for the system source'),
  system: z.boolean().describe("The project's system source: the service emits its operational events on it; it receives no HTTP requests"),
  signing_secret: z.string().nullable().describe('Shown once, in the answer that generated it; null otherwise'),
  has_signing_secret: z.boolean(),
  previous_secret_expires_at: z.iso.datetime().nullable().describe('End of the rotation overlap, while the old secret is still accepted'),
  event_type_path: z.string().nullable(),
  event_type_header: z.string().nullable(),
  typing_rules: z.array(z.record(z.string(), z.unknown())),
  is_active: z.boolean(),
  provider: z.enum(ENDPOINT_PROVIDERS).nullable(),
  provider_repo: z.string().nullable(),
  provider_webhook_id: z.string().nullable(),
  oauth_connection_id: z.uuid().nullable(),
  is_integration: z.boolean(),
  schema_alerts: z.enum(SCHEMA_ALERTS).describe('Which payload changes alert: changes (removed or retyped paths, new event types), all (also added paths), off'),
  silence_alerts: z.enum(SILENCE_ALERTS).describe('When a quiet source alerts: learned (from its history), expected_interval, off'),
  expected_interval_seconds: z.number().int().nullable().describe('At least one event expected every this many seconds (with silence_alerts expected_interval)'),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type EndpointView = Omit<z.infer<typeof endpointView>, 'typing_rules'> & { typing_rules: TypingRule[] };

export function toEndpointView(endpoint: WebhookEndpoint, config: Pick<Config, 'publicBaseUrl'>, generatedSecret: string | null = null): EndpointView {
  const overlapEnd = endpoint.previousSecretExpiresAt;
  return {
    id: endpoint.id,
    project_id: endpoint.project.id,
    name: endpoint.name,
    slug: endpoint.slug,
    ingress_url: endpoint.isSystem ? null : `${config.publicBaseUrl}/hooks/${endpoint.slug}`,
    system: endpoint.isSystem,
    signing_secret: generatedSecret,
    has_signing_secret: !!endpoint.signingSecretEnc,
    previous_secret_expires_at: overlapEnd && overlapEnd.getTime() > Date.now() ? overlapEnd.toISOString() : null,
    event_type_path: endpoint.eventTypePath ?? null,
    event_type_header: endpoint.eventTypeHeader ?? null,
    typing_rules: endpoint.typingRules,
    is_active: endpoint.isActive,
    provider: endpoint.provider ?? null,
    provider_repo: endpoint.providerRepo ?? null,
    provider_webhook_id: endpoint.providerWebhookId ?? null,
    oauth_connection_id: endpoint.oauthConnection?.id ?? null,
    is_integration: endpoint.isIntegration,
    schema_alerts: endpoint.schemaAlerts,
    silence_alerts: endpoint.silenceAlerts,
    expected_interval_seconds: endpoint.expectedIntervalSeconds ?? null,
    created_at: endpoint.createdAt.toISOString(),
    updated_at: endpoint.updatedAt.toISOString(),
  };
}
