import { z } from 'zod';
import { given, notAllowed, present } from '../common/validation';
import { ValidationError } from '../common/errors';
import { findPage, type Page, type PageRequest } from '../common/pagination';
import { findInProject } from '../common/project-scope';
import type { ProjectContext, RequestContext } from '../common/request-context';
import { DEFAULT_RETRY_POLICY } from '../common/types';
import { SIGNATURE_SCHEMES } from '../sending/signature';
import {
  applySigning,
  clearDestinationSecret,
  rotateDestinationSecret,
  type RotateDestinationSecretInput,
  signingSecretSchema,
} from './destination-secret.service';
import { API_DESTINATION_TYPES, checkPlatformConfigured, destinationPlatforms, type DestinationPlatformView } from './destination-platforms';
import { Destination } from './destination.entity';
import { type DestinationView, toDestinationView } from './destination.view';

/**
 * Destinations (docs/resources.md, docs/concepts.md#secrets). `cli` destinations
 * are made by the CLI's `listen` and cannot be created here, but they are
 * listed, updated and deleted like the others. The type is fixed at creation.
 */

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

// The pattern (OpenAPI) is a safe subset of what isHttpUrl accepts: a named host, an optional port, any path.
const HTTP_URL = /^[Hh][Tt][Tt][Pp][Ss]?:\/\/(?:[A-Za-z0-9-]+\.)*[A-Za-z][A-Za-z0-9-]*(?::[0-9]{1,4})?(?:[/?#]\S*)?$/;
const webhookUrl = z.string().max(2048).refine(isHttpUrl, 'must be an absolute http(s) URL').meta({ pattern: HTTP_URL.source });
const botToken = z.string().trim().min(1).max(500);
const platformId = z.string().trim().min(1).max(200);

export const retryPolicySchema = z.object({
  max_attempts: z.number({ message: 'must be an integer' }).int().min(1, 'must be 1 to 20').max(20, 'must be 1 to 20'),
  backoff: z
    .array(z.number({ message: 'must be an integer' }).int().min(0, 'delays are 0 to 86400 seconds').max(86_400, 'delays are 0 to 86400 seconds'))
    .min(1, 'needs at least one delay (seconds)')
    .max(20),
});

const eventTypes = z.array(z.string().trim().min(1).max(200)).max(100);

export const createDestinationInput = z.object({
  name: z.string().trim().min(1).max(100),
  type: z.enum(API_DESTINATION_TYPES, { message: `must be one of ${API_DESTINATION_TYPES.join(', ')} (cli destinations are created by the CLI)` }),
  webhook_url: webhookUrl.optional(),
  bot_token: botToken
    .optional()
    .describe("Chat destinations. Sends through the platform's API root, which the server must set (GET /v1/destination-platforms); otherwise 400 platform_not_configured."),
  // Signed by default: absent generates a secret (shown once in the answer), null asks for unsigned deliveries.
  signing_secret: signingSecretSchema
    .nullable()
    .optional()
    .describe('Webhook only. Absent: a secret is generated and shown once in the answer; null: deliveries are not signed.'),
  signature_scheme: z
    .enum(SIGNATURE_SCHEMES, { message: 'must be service or standard' })
    .optional()
    .describe('Webhook only. service (default): X-{prefix}-Signature; standard: Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature)'),
  guild_id: platformId.nullable().optional(),
  channel_id: platformId.nullable().optional(),
  retry_policy: retryPolicySchema.optional(),
  event_types: eventTypes.optional(),
  is_active: z.boolean().optional(),
  max_concurrency: z.number({ message: 'must be an integer' }).int().min(1, 'must be 1 to 1000').max(1000, 'must be 1 to 1000').nullable().optional(),
}).meta({ anyOf: API_DESTINATION_TYPES.map(typeRequirements) });
export type CreateDestinationInput = z.infer<typeof createDestinationInput>;

/** Secrets: a string replaces, null removes, absent keeps. Changing `signing_secret` here cuts over at once (rotate for an overlap). */
export const updateDestinationInput = createDestinationInput
  .omit({ type: true })
  .extend({ webhook_url: webhookUrl.nullable(), bot_token: botToken.nullable(), signing_secret: signingSecretSchema.nullable() })
  .partial()
  .extend({ type: notAllowed('the type cannot change; create another destination') });
export type UpdateDestinationInput = z.infer<typeof updateDestinationInput>;

/** checkTypeRequirements below, as JSON Schema for a new destination of `type` (the OpenAPI document). */
function typeRequirements(type: (typeof API_DESTINATION_TYPES)[number]): Record<string, unknown> {
  const none = (...fields: string[]) => ({ not: { anyOf: fields.map(given) } });
  const chat = { anyOf: [present('webhook_url'), present('bot_token')], dependentSchemas: { bot_token: given('channel_id') } };
  const rules = {
    webhook: [present('webhook_url'), none('bot_token', 'guild_id')],
    chat_a: [chat, none('signing_secret', 'guild_id'), { not: present('signature_scheme') }],
    chat_b: [chat, none('signing_secret'), { not: present('signature_scheme') }],
    chat_c: [present('bot_token'), given('channel_id'), { not: present('webhook_url') }, none('signing_secret', 'guild_id'), { not: present('signature_scheme') }],
  }[type];
  return { properties: { type: { const: type } }, allOf: rules };
}

function refuse(field: string, message: string): never {
  throw new ValidationError(`Invalid body: ${field}: ${message}`, { in: 'body', fields: [{ field, message }] });
}

/** The fields each type needs, checked on the destination as it will be saved (docs/delivery.md#chat-destinations). */
function checkTypeRequirements(d: Destination): void {
  const hasUrl = !!d.webhookUrlEnc;
  const hasToken = !!d.botTokenEnc;
  if (d.type === 'cli') {
    // Its `relay listen` prints the secret and the local server checks it: rotate it, never remove it.
    if (!d.signingSecretEnc) refuse('signing_secret', 'a cli destination is always signed; rotate its secret (POST /v1/destinations/{id}/signing-secret) instead of removing it');
    return;
  }
  if (d.type !== 'webhook' && d.signingSecretEnc) refuse('signing_secret', 'only webhook destinations are signed');
  if (d.type !== 'chat_b' && d.guildId) refuse('guild_id', 'guild_id applies to chat_b destinations only');
  switch (d.type) {
    case 'webhook':
      if (!hasUrl) refuse('webhook_url', 'a webhook destination needs webhook_url');
      if (hasToken) refuse('bot_token', 'only chat destinations have a bot token');
      break;
    case 'chat_a':
    case 'chat_b':
      if (hasToken && !d.channelId) refuse('channel_id', `a ${d.type} destination with a bot_token needs channel_id`);
      if (!hasUrl && !hasToken) refuse('webhook_url', `a ${d.type} destination needs webhook_url, or bot_token and channel_id`);
      break;
    case 'chat_c':
      if (hasUrl) refuse('webhook_url', 'chat_c sends with bot_token to channel_id; it has no webhook_url');
      if (!hasToken) refuse('bot_token', 'a chat_c destination needs bot_token');
      if (!d.channelId) refuse('channel_id', 'a chat_c destination needs channel_id (the chat id)');
      break;
  }
}

/** Sets the input's fields on `d`; answers the signing secret it generated (shown once), if any. */
function applyFields(ctx: ProjectContext, d: Destination, input: Omit<UpdateDestinationInput, 'type'>, creating = false): string | null {
  const { secrets } = ctx.container;
  if (input.signature_scheme !== undefined && d.type !== 'webhook' && d.type !== 'cli') refuse('signature_scheme', 'only webhook destinations are signed');
  if (input.name !== undefined) d.name = input.name;
  if (input.webhook_url !== undefined) {
    d.webhookUrlEnc = input.webhook_url === null ? null : secrets.seal(input.webhook_url);
    d.webhookHost = input.webhook_url === null ? null : new URL(input.webhook_url).host;
  }
  if (input.bot_token !== undefined) d.botTokenEnc = input.bot_token === null ? null : secrets.seal(input.bot_token);
  if (input.guild_id !== undefined) d.guildId = input.guild_id;
  if (input.channel_id !== undefined) d.channelId = input.channel_id;
  if (input.retry_policy !== undefined) d.retryPolicy = input.retry_policy;
  if (input.event_types !== undefined) d.eventTypes = [...new Set(input.event_types)];
  if (input.is_active !== undefined && input.is_active !== d.isActive) {
    // Resuming undoes any pause, the service's own (410 Gone) included.
    d.isActive = input.is_active;
    d.pausedReason = input.is_active ? null : 'user';
    d.pausedAt = input.is_active ? null : new Date();
  }
  if (input.max_concurrency !== undefined) d.maxConcurrency = input.max_concurrency;
  return applySigning(secrets, d, input, creating);
}

export function findDestination(ctx: ProjectContext, id: string): Promise<Destination> {
  return findInProject(ctx, Destination, 'Destination', id);
}

export async function listDestinations(ctx: ProjectContext, page: PageRequest): Promise<Page<DestinationView>> {
  return findPage(ctx.em, Destination, { project: ctx.project.id }, page, toDestinationView);
}

export async function getDestination(ctx: ProjectContext, id: string): Promise<DestinationView> {
  return toDestinationView(await findDestination(ctx, id));
}

/** A webhook destination is signed unless the input says `signing_secret: null`; a generated secret is in this answer only. */
export async function createDestination(ctx: ProjectContext, input: CreateDestinationInput): Promise<DestinationView> {
  const destination = ctx.em.create(Destination, {
    project: ctx.project,
    name: input.name,
    type: input.type,
    retryPolicy: { ...DEFAULT_RETRY_POLICY, backoff: [...DEFAULT_RETRY_POLICY.backoff] },
  });
  const generated = applyFields(ctx, destination, input, true);
  checkTypeRequirements(destination);
  checkPlatformConfigured(destination, ctx.container.config);
  await ctx.em.flush();
  return toDestinationView(destination, generated);
}

export async function updateDestination(ctx: ProjectContext, id: string, input: UpdateDestinationInput): Promise<DestinationView> {
  const destination = await findDestination(ctx, id);
  const generated = applyFields(ctx, destination, input);
  checkTypeRequirements(destination);
  // A paused destination sends nothing: pausing (or renaming while paused) one the server cannot deliver stays possible.
  if (destination.isActive) checkPlatformConfigured(destination, ctx.container.config);
  await ctx.em.flush();
  return toDestinationView(destination, generated);
}

/** What each destination type sends, and whether this server can send it (the forms disable what it cannot). */
export function listDestinationPlatforms(ctx: RequestContext): DestinationPlatformView[] {
  return destinationPlatforms(ctx.container.config);
}

/** Its links and delivery history go with it (foreign keys cascade). */
export async function deleteDestination(ctx: ProjectContext, id: string): Promise<void> {
  await ctx.em.remove(await findDestination(ctx, id)).flush();
}

export async function rotateSigningSecret(ctx: ProjectContext, id: string, input: RotateDestinationSecretInput): Promise<DestinationView> {
  await rotateDestinationSecret(ctx, id, input);
  return getDestination(ctx, id);
}

export async function clearSigningSecret(ctx: ProjectContext, id: string): Promise<DestinationView> {
  await clearDestinationSecret(ctx, id);
  return getDestination(ctx, id);
}
