import { z } from 'zod';
import { ConflictError, ValidationError } from '../common/errors';
import { exactlyOne, notAllowed, present } from '../common/validation';
import { findPage, type Page, type PageRequest } from '../common/pagination';
import { findInProject, flushOrConflict } from '../common/project-scope';
import type { ProjectContext } from '../common/request-context';
import { SLUG_PATTERN, uniqueSlug } from '../common/slug';
import { ENDPOINT_PROVIDERS, SCHEMA_ALERTS, SILENCE_ALERTS, type TypingRule } from '../common/types';
import { FIELD_REF, parseFieldRef } from '../conditions/field-path';
import { conditionSchema, logicSchema } from '../filters/condition.schema';
import { MAX_TYPING_RULES } from '../ingress/event-type';
import { notifyEndpointChanged } from '../ingress/endpoint-cache';
import { OAuthConnection } from '../oauth/oauth-connection.entity';
import { WebhookEndpoint } from './endpoint.entity';
import { generateEndpointSecret, rotateEndpointSecret, type RotateEndpointSecretInput } from './endpoint-secret.service';
import { type EndpointView, toEndpointView } from './endpoint.view';
import { refuseSystemEndpoint } from './system-endpoint';
import { restartExpectation } from '../schemas/silence-check';

/** A typing-rule part: a literal, or a `body.x.y` / `header.Name` path (docs/ingress.md#event-types). */
const typingPart = z
  .object({ literal: z.string().max(200).optional(), path: z.string().max(500).meta({ pattern: FIELD_REF.source }).optional() })
  .meta(exactlyOne(present('literal'), present('path')))
  .superRefine((part, ctx) => {
    if ((part.literal === undefined) === (part.path === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'a part is either {"literal": "..."} or {"path": "body.x.y" | "header.Name"}' });
    } else if (part.path !== undefined && !parseFieldRef(part.path)) {
      ctx.addIssue({ code: 'custom', path: ['path'], message: 'must be "header.<Name>" or "body.<dot.path>"' });
    }
  })
  .transform((part): TypingRule['parts'][number] => (part.path !== undefined ? { path: part.path } : { literal: part.literal! }));

const typingRule = z.object({
  name: z.string().trim().min(1).max(100),
  logic: logicSchema.default('AND'),
  conditions: z.array(conditionSchema).max(20).default([]),
  parts: z.array(typingPart).min(1, 'a typing rule needs at least one part').max(20),
  separator: z.string().max(10).optional(),
});

const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, 'must be an HTTP header name');
const dotPath = z.string().regex(/^[^.\s]+(\.[^.\s]+)*$/, 'must be a dot-notation path such as "action" or "data.object.type"').max(200);
const optionalText = z.string().trim().min(1).max(500).nullable().optional();

export const createEndpointInput = z.object({
  name: z.string().trim().min(1).max(100),
  slug: z.string().regex(SLUG_PATTERN, 'must be 1–64 lower-case letters, digits and hyphens').optional(),
  /** Provider-issued secrets (payments_a, codehost_b) are set here; otherwise one is generated and shown once. */
  signing_secret: z.string().min(8, 'must be at least 8 characters (32 or more random bytes recommended)').max(1024).optional(),
  event_type_path: dotPath.nullable().optional(),
  event_type_header: headerName.nullable().optional(),
  typing_rules: z.array(typingRule).max(MAX_TYPING_RULES, `at most ${MAX_TYPING_RULES} typing rules per endpoint`).optional(),
  is_active: z.boolean().optional(),
  provider: z.enum(ENDPOINT_PROVIDERS, { message: `must be one of ${ENDPOINT_PROVIDERS.join(', ')} or null` }).nullable().optional(),
  provider_repo: optionalText,
  provider_webhook_id: optionalText,
  oauth_connection_id: z.uuid({ message: 'must be a UUID' }).nullable().optional(),
  schema_alerts: z
    .enum(SCHEMA_ALERTS)
    .optional()
    .describe('Which payload changes alert (docs/schemas.md): changes (removed or retyped paths, new event types; the default), all (also added paths), off'),
  silence_alerts: z
    .enum(SILENCE_ALERTS)
    .optional()
    .describe('When a quiet source alerts: learned (from its history; the default), expected_interval (after expected_interval_seconds), off'),
  expected_interval_seconds: z
    .number()
    .int()
    .min(10)
    .max(2_592_000)
    .nullable()
    .optional()
    .describe('At least one event is expected every this many seconds (10 to 2592000); setting it sets silence_alerts to expected_interval unless given'),
});
export type CreateEndpointInput = z.infer<typeof createEndpointInput>;

/** The secret changes only through rotation (`POST /v1/endpoints/{id}/signing-secret`). */
export const updateEndpointInput = createEndpointInput
  .partial()
  .extend({ signing_secret: notAllowed('change it with POST /v1/endpoints/{id}/signing-secret (rotation)') });
export type UpdateEndpointInput = z.infer<typeof updateEndpointInput>;

const slugTaken = (slug: string) => () =>
  new ConflictError(`The slug "${slug}" is already taken; choose another or omit it to have one generated.`, { field: 'slug' }, 'slug_taken');

export function findEndpoint(ctx: ProjectContext, id: string): Promise<WebhookEndpoint> {
  return findInProject(ctx, WebhookEndpoint, 'Endpoint', id);
}

/** What the system source takes: it receives no requests, so nothing about reading, authenticating or watching one applies. */
const SYSTEM_ENDPOINT_FIELDS = new Set(['name', 'is_active']);

function refuseSystemFields(input: Omit<UpdateEndpointInput, 'signing_secret'>): void {
  const field = Object.keys(input).find((key) => input[key as keyof typeof input] !== undefined && !SYSTEM_ENDPOINT_FIELDS.has(key));
  if (!field) return;
  const message = 'the system source receives no HTTP requests; only name and is_active (whether operational events are emitted) can change';
  throw new ValidationError(`Invalid body: ${field}: ${message}`, { in: 'body', fields: [{ field, message }] }, 'system_endpoint');
}

async function applyFields(ctx: ProjectContext, endpoint: WebhookEndpoint, input: Omit<UpdateEndpointInput, 'signing_secret'>): Promise<void> {
  if (endpoint.isSystem) refuseSystemFields(input);
  if (input.name !== undefined) endpoint.name = input.name;
  if (input.slug !== undefined) endpoint.slug = input.slug;
  if (input.event_type_path !== undefined) endpoint.eventTypePath = input.event_type_path;
  if (input.event_type_header !== undefined) endpoint.eventTypeHeader = input.event_type_header;
  if (input.typing_rules !== undefined) endpoint.typingRules = input.typing_rules;
  if (input.is_active !== undefined) endpoint.isActive = input.is_active;
  if (input.provider !== undefined) endpoint.provider = input.provider;
  if (input.provider_repo !== undefined) endpoint.providerRepo = input.provider_repo;
  if (input.provider_webhook_id !== undefined) endpoint.providerWebhookId = input.provider_webhook_id;
  applySourceMonitoring(endpoint, input);
  if (input.oauth_connection_id !== undefined) {
    const id = input.oauth_connection_id;
    const connection = id ? await ctx.em.findOne(OAuthConnection, { id, project: ctx.project.id }) : null;
    if (id && !connection) throw new ValidationError(`OAuth connection ${id} does not exist in this project.`, { field: 'oauth_connection_id' }, 'invalid_reference');
    endpoint.oauthConnection = connection;
  }
}

/** The schema and silence settings (docs/schemas.md); an expected interval needs its number of seconds. */
function applySourceMonitoring(endpoint: WebhookEndpoint, input: Omit<UpdateEndpointInput, 'signing_secret'>): void {
  if (input.schema_alerts !== undefined) endpoint.schemaAlerts = input.schema_alerts;
  if (input.expected_interval_seconds !== undefined) {
    endpoint.expectedIntervalSeconds = input.expected_interval_seconds;
    if (input.silence_alerts === undefined && input.expected_interval_seconds !== null) endpoint.silenceAlerts = 'expected_interval';
  }
  if (input.silence_alerts !== undefined) endpoint.silenceAlerts = input.silence_alerts;
  if (endpoint.silenceAlerts === 'expected_interval' && !endpoint.expectedIntervalSeconds) {
    const message = 'silence_alerts "expected_interval" needs expected_interval_seconds (at least one event every that many seconds)';
    throw new ValidationError(`Invalid body: expected_interval_seconds: ${message}`, { in: 'body', fields: [{ field: 'expected_interval_seconds', message }] });
  }
}

/** Flush, then tell every ingress process to drop its cached copy (the NOTIFY follows the commit). */
async function saveAndNotify(ctx: ProjectContext, endpoint: WebhookEndpoint, silenceChanged = false): Promise<void> {
  await flushOrConflict(ctx.em, slugTaken(endpoint.slug));
  await notifyEndpointChanged(ctx.em, endpoint.id);
  if (silenceChanged) await restartExpectation(ctx.em, endpoint);
}

const changesSilence = (input: Pick<UpdateEndpointInput, 'silence_alerts' | 'expected_interval_seconds'>) => input.silence_alerts !== undefined || input.expected_interval_seconds !== undefined;

export async function listEndpoints(ctx: ProjectContext, page: PageRequest): Promise<Page<EndpointView>> {
  return findPage(ctx.em, WebhookEndpoint, { project: ctx.project.id }, page, (e) => toEndpointView(e, ctx.container.config));
}

export async function getEndpoint(ctx: ProjectContext, id: string): Promise<EndpointView> {
  return toEndpointView(await findEndpoint(ctx, id), ctx.container.config);
}

/** The answer carries `signing_secret` once, when it was generated here. */
export async function createEndpoint(ctx: ProjectContext, input: CreateEndpointInput): Promise<EndpointView> {
  const generated = input.signing_secret === undefined ? generateEndpointSecret() : null;
  const endpoint = ctx.em.create(WebhookEndpoint, {
    project: ctx.project,
    name: input.name,
    slug: input.slug ?? uniqueSlug(input.name),
    signingSecretEnc: ctx.container.secrets.seal(input.signing_secret ?? generated!),
  });
  await applyFields(ctx, endpoint, { ...input, name: undefined, slug: undefined });
  await saveAndNotify(ctx, endpoint, changesSilence(input));
  return toEndpointView(endpoint, ctx.container.config, generated);
}

export async function updateEndpoint(ctx: ProjectContext, id: string, input: UpdateEndpointInput): Promise<EndpointView> {
  const endpoint = await findEndpoint(ctx, id);
  await applyFields(ctx, endpoint, input);
  await saveAndNotify(ctx, endpoint, changesSilence(input));
  return toEndpointView(endpoint, ctx.container.config);
}

/** Deletes the endpoint with its filters, links, events and their deliveries (foreign keys cascade). */
export async function deleteEndpoint(ctx: ProjectContext, id: string): Promise<void> {
  const endpoint = await findEndpoint(ctx, id);
  refuseSystemEndpoint(endpoint, 'be deleted (set is_active to false to stop operational events)');
  await ctx.em.remove(endpoint).flush();
  await notifyEndpointChanged(ctx.em, endpoint.id);
}

/** docs/ingress.md; the answer shows the new secret only when it was generated. */
export async function rotateSecret(ctx: ProjectContext, id: string, input: RotateEndpointSecretInput): Promise<EndpointView> {
  const result = await rotateEndpointSecret(ctx, id, input);
  const endpoint = await findEndpoint(ctx, id);
  return toEndpointView(endpoint, ctx.container.config, result.signing_secret ?? null);
}
