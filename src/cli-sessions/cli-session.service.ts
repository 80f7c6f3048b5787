import { z } from 'zod';
import type { Condition } from '../common/types';
import { ForbiddenError, NotFoundError, UnauthenticatedError, ValidationError } from '../common/errors';
import { isUuid } from '../common/ids';
import type { ProjectContext } from '../common/request-context';
import { DEFAULT_RETRY_POLICY } from '../common/types';
import { replayEventToDestination } from '../deliveries/delivery-operations.service';
import { signalCliAnswer } from '../temporal/delivery-workflows';
import type { Delivery } from '../deliveries/delivery.entity';
import { applySigning, generateDestinationSecret } from '../destinations/destination-secret.service';
import { Destination } from '../destinations/destination.entity';
import { type DestinationView, toDestinationView } from '../destinations/destination.view';
import { WebhookEndpoint } from '../endpoints/endpoint.entity';
import { type EndpointView, toEndpointView } from '../endpoints/endpoint.view';
import { conditionSchema } from '../filters/condition.schema';
import { EndpointDestination } from '../links/endpoint-destination.entity';
import { SIGNATURE_SCHEMES, type SignatureScheme } from '../sending/signature';
import { createLink, deleteLink, updateLink } from '../links/link.service';
import { MessageTemplate } from '../templates/message-template.entity';
import { Transform } from '../transforms/transform.entity';
import { User } from '../users/user.entity';
import { NO_CLI_CONNECTED } from './cli-forwarder';
import { CLI_MAX_DELAY_MS, CLI_MISSED_LIMIT, CLI_STALE_AFTER_MS, FILTERED_BY_SESSION } from './cli-limits';

/**
 * `relay listen` sessions (docs/cli.md): a session is
 * a `cli` destination named `cli:<email>@<machine>:<slugs or *>`, created or
 * reused by name, linked to the chosen sources through the links service.
 * Its options live in `destinations.cli_session`; the transform and template
 * are also set on its links (that is where the attempt pipeline reads them).
 */

/** What `destinations.cli_session` holds for a `cli` destination. */
export interface CliSessionSettings {
  /** The user's email (or `api-key:<id>`), as in the name. */
  owner: string;
  machine: string;
  /** Null: every active endpoint of the project at the time the session started. */
  sourceSlugs: string[] | null;
  transformName: string | null;
  templateName: string | null;
  delayMs: number;
  /** `--filter`s, all of which an event must match to be forwarded (evaluated by the worker: CliForwarder). */
  filters?: Condition[];
}

export interface CliSessionView {
  destination: DestinationView;
  sources: EndpointView[];
  transformName: string | null;
  templateName: string | null;
  delayMs: number;
  /** `--event-type`: the destination's `event_types` (empty: every type). */
  eventTypes: string[];
  /** `--filter`: conditions (AND) an event must match to cross the tunnel. */
  filters: Condition[];
  /** What every forward is signed with (the webhook signature headers): made with the destination, kept across sessions. */
  signingSecret: string;
  /** The scheme forwards are signed in (the destination's `signature_scheme`), kept across sessions until changed. */
  signatureScheme: SignatureScheme;
}


const name = z.string().trim().min(1).max(200);
const sourceSlugs = z.array(z.string().trim().min(1).max(100)).max(100);
const delayMs = z.number().int().min(0, `must be 0 to ${CLI_MAX_DELAY_MS}`).max(CLI_MAX_DELAY_MS, `must be 0 to ${CLI_MAX_DELAY_MS}`);

/** Absent leaves a setting as it is; an explicit null clears the transform or template. */
export const updateCliSessionInput = z.object({
  sourceSlugs: sourceSlugs.nullish(),
  transformName: name.nullish(),
  templateName: name.nullish(),
  delayMs: delayMs.nullish(),
  // `--event-type a,b`: stored as the destination's event_types, so the fan-out creates no delivery for other types.
  eventTypes: z.array(z.string().trim().min(1).max(200)).max(50).nullish(),
  // `--filter '<field> <op> <value>'`: the filter conditions, checked as filter groups' are.
  filters: z.array(conditionSchema).max(20).nullish(),
  // `--signature-scheme`: kept on the destination, like its secret, until changed.
  signatureScheme: z.enum(SIGNATURE_SCHEMES, { message: 'must be service or standard' }).nullish(),
});
export type UpdateCliSessionInput = z.infer<typeof updateCliSessionInput>;

export const startCliSessionInput = updateCliSessionInput.extend({ machine: z.string().trim().min(1).max(200) });
export type StartCliSessionInput = z.infer<typeof startCliSessionInput>;

export const cliForwardResultInput = z.object({
  forwardId: z.uuid({ message: 'must be a UUID' }),
  statusCode: z.number().int().min(100).max(599).nullish(),
  responseHeaders: z.record(z.string(), z.string()).nullish(),
  // The CLI sends at most 64 KiB; the attempt keeps the first 4096 bytes.
  responseBody: z.string().max(65_536).nullish(),
  latencyMs: z.number().int().min(0).max(86_400_000),
  error: z.string().max(2000).nullish(),
  skipped: z.boolean().nullish(),
});
export type CliForwardResultInput = z.infer<typeof cliForwardResultInput>;

export function destinationName(owner: string, machine: string, slugs: string[] | null): string {
  return `cli:${owner}@${machine}:${slugs && slugs.length > 0 ? slugs.join(',') : '*'}`;
}

/** Who the session belongs to in its name: the user's email (a project API key, which acts as a developer, is `api-key:<id>`). */
async function callerLabel(ctx: ProjectContext): Promise<string> {
  const principal = ctx.principal;
  if (principal?.kind === 'api_key') return `api-key:${principal.apiKeyId}`;
  if (!principal) throw new UnauthenticatedError();
  return (await ctx.em.findOneOrFail(User, { id: principal.userId })).email;
}

/** The chosen sources: the named slugs (each must exist), or every active endpoint. */
async function resolveSources(ctx: ProjectContext, slugs: string[] | null): Promise<WebhookEndpoint[]> {
  if (slugs && slugs.length > 0) {
    const unique = [...new Set(slugs)];
    const found = await ctx.em.find(WebhookEndpoint, { project: ctx.project.id, slug: { $in: unique } }, { orderBy: { slug: 'asc' } });
    const missing = unique.find((s) => !found.some((e) => e.slug === s));
    if (missing) throw new NotFoundError('Endpoint', missing);
    return found;
  }
  // The system source only when named: `listen` without sources forwards webhooks, not operational events.
  const all = await ctx.em.find(WebhookEndpoint, { project: ctx.project.id, isActive: true, isSystem: false }, { orderBy: { slug: 'asc' } });
  if (all.length === 0) throw new ValidationError('No sources found: this project has no active endpoints; create one first.', undefined, 'no_sources');
  return all;
}

async function idByName(ctx: ProjectContext, entity: typeof Transform | typeof MessageTemplate, label: string, value: string | null): Promise<string | null> {
  if (value === null) return null;
  const row = await ctx.em.findOne(entity, { project: ctx.project.id, name: value });
  if (!row) throw new NotFoundError(label, value);
  return row.id;
}

/** Sorted, without duplicates; none means every active endpoint (`*`). */
function normalizeSlugs(slugs: string[] | null | undefined): string[] | null {
  return slugs && slugs.length > 0 ? [...new Set(slugs)].sort() : null;
}

/**
 * Saves the session: the destination's settings and its links to exactly these
 * sources, each with the session's transform and template, in one transaction.
 * Names are resolved first, so an unknown one changes nothing.
 */
async function saveSession(
  ctx: ProjectContext,
  existingId: string | null,
  sources: WebhookEndpoint[],
  settings: CliSessionSettings,
  eventTypes: string[],
  signatureScheme: SignatureScheme | null | undefined,
): Promise<Destination> {
  const fields = {
    transform_id: await idByName(ctx, Transform, 'Transform', settings.transformName),
    template_id: await idByName(ctx, MessageTemplate, 'Template', settings.templateName),
  };
  return ctx.em.transactional(async (em) => {
    const tx: ProjectContext = { ...ctx, em };
    const name = destinationName(settings.owner, settings.machine, settings.sourceSlugs);
    const saved = existingId
      ? await em.findOneOrFail(Destination, { id: existingId })
      : em.create(Destination, { project: ctx.project.id, name, type: 'cli', retryPolicy: { ...DEFAULT_RETRY_POLICY, backoff: [...DEFAULT_RETRY_POLICY.backoff] } });
    saved.name = name;
    saved.cliSession = { ...settings };
    saved.eventTypes = [...new Set(eventTypes)];
    saved.isActive = true;
    // A scheme the current secret cannot sign in replaces it (applySigning); otherwise the secret is made once per
    // destination (also for one made before secrets existed), and rotating it is the destinations API's business.
    if (signatureScheme) applySigning(ctx.container.secrets, saved, { signature_scheme: signatureScheme }, false);
    if (!saved.signingSecretEnc) saved.signingSecretEnc = ctx.container.secrets.seal(generateDestinationSecret());
    await em.flush();
    const linked = await em.find(EndpointDestination, { destination: saved.id });
    for (const link of linked) {
      if (!sources.some((s) => s.id === link.endpoint.id)) await deleteLink(tx, link.endpoint.id, saved.id);
    }
    for (const source of sources) {
      if (linked.some((l) => l.endpoint.id === source.id)) await updateLink(tx, source.id, saved.id, fields);
      else await createLink(tx, source.id, { destination_id: saved.id, ...fields });
    }
    return saved;
  });
}

function toView(ctx: ProjectContext, destination: Destination, sources: WebhookEndpoint[], s: CliSessionSettings): CliSessionView {
  return {
    destination: toDestinationView(destination),
    sources: sources.map((e) => toEndpointView(e, ctx.container.config)),
    transformName: s.transformName,
    templateName: s.templateName,
    delayMs: s.delayMs,
    eventTypes: [...destination.eventTypes],
    filters: s.filters ?? [],
    signingSecret: ctx.container.secrets.open(destination.signingSecretEnc!),
    signatureScheme: destination.signatureScheme,
  };
}

export async function startCliSession(ctx: ProjectContext, input: StartCliSessionInput): Promise<CliSessionView> {
  const owner = await callerLabel(ctx);
  const slugs = normalizeSlugs(input.sourceSlugs);
  const sources = await resolveSources(ctx, slugs);
  const settings: CliSessionSettings = {
    owner,
    machine: input.machine,
    sourceSlugs: slugs,
    transformName: input.transformName ?? null,
    templateName: input.templateName ?? null,
    delayMs: input.delayMs ?? 0,
    filters: input.filters ?? [],
  };
  const existing = await ctx.em.findOne(Destination, { project: ctx.project.id, type: 'cli', name: destinationName(owner, input.machine, slugs) }, { orderBy: { id: 'asc' } });
  const destination = await saveSession(ctx, existing?.id ?? null, sources, settings, input.eventTypes ?? [], input.signatureScheme);
  return toView(ctx, destination, sources, settings);
}

/**
 * A `cli` destination of the project that the caller's own `relay listen`
 * session created. Only its owner (the user, or API key) may be its CLI
 * (`cliForwards`), change it (updateCliSession answers its signing secret) or
 * replay to it: anyone else in the project, a viewer or another developer, is refused.
 */
async function findOwnCliDestination(ctx: ProjectContext, destinationId: string): Promise<Destination> {
  const destination = isUuid(destinationId) ? await ctx.em.findOne(Destination, { id: destinationId, project: ctx.project.id, type: 'cli' }) : null;
  if (!destination) throw new NotFoundError('CLI destination', destinationId);
  const owner = (destination.cliSession as Partial<CliSessionSettings> | null)?.owner;
  if (!owner || owner !== (await callerLabel(ctx))) {
    throw new ForbiddenError('Only the user whose `relay listen` session created this CLI destination can use it.');
  }
  return destination;
}

export async function updateCliSession(ctx: ProjectContext, destinationId: string, input: UpdateCliSessionInput): Promise<CliSessionView> {
  const destination = await findOwnCliDestination(ctx, destinationId);
  const current = (destination.cliSession ?? {}) as Partial<CliSessionSettings>;
  const owner = current.owner ?? (await callerLabel(ctx));
  const slugs = input.sourceSlugs === undefined ? (current.sourceSlugs ?? null) : normalizeSlugs(input.sourceSlugs);
  const settings: CliSessionSettings = {
    owner,
    machine: current.machine ?? 'unknown',
    sourceSlugs: slugs,
    transformName: input.transformName === undefined ? (current.transformName ?? null) : input.transformName,
    templateName: input.templateName === undefined ? (current.templateName ?? null) : input.templateName,
    delayMs: input.delayMs ?? current.delayMs ?? 0,
    filters: input.filters ?? current.filters ?? [],
  };
  const sources = await resolveSources(ctx, slugs);
  const eventTypes = input.eventTypes ?? destination.eventTypes;
  // The name follows the sources (saveSession), so that the next `listen` with the same arguments finds this destination again.
  return toView(ctx, await saveSession(ctx, destination.id, sources, settings, eventTypes, input.signatureScheme), sources, settings);
}

/**
 * Who may hold a `cliForwards` subscription (be the session's CLI): only its
 * owner. Anyone else would receive the owner's forwards and make the
 * destination look connected.
 */
export async function authorizeCliForwards(ctx: ProjectContext, destinationId: string): Promise<void> {
  await findOwnCliDestination(ctx, destinationId);
}

export const missedCliEventsInput = z.object({
  since: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' }).nullish(),
});

/**
 * The events this session missed while no CLI was connected, oldest first, at most CLI_MISSED_LIMIT: asked by
 * `relay listen` when it starts and after each reconnection (docs/internals/cli-tunnel.md "Reconnecting").
 *
 * Missed: a delivery to the destination that ended `skipped` because nobody was connected (NO_CLI_CONNECTED; not
 * what the session's `--filter`s left out, nor what was answered while paused, which the CLI saw), made after the
 * last attempt that reached a CLI before the current connection began (a forward that crossed the tunnel, answered
 * or not), and not reached by a later attempt (an `f` or `r` replay) since. So after `q`, Ctrl+C or kill -9 the next
 * `listen` is offered what arrived after the previous one last received something; after a reconnection, what
 * arrived during the drop. `since` (older CLIs send the drop time) only narrows it further.
 *
 * "After" compares attempt ids (UUIDv7), which say when an attempt was made: a forward's attempt carries the id of
 * its hand-off to the CLI, however late its answer is recorded (a late record of a forward made before a drop must
 * not hide what was skipped during the drop).
 */
export async function missedCliEvents(ctx: ProjectContext, destinationId: string, input: z.infer<typeof missedCliEventsInput>): Promise<string[]> {
  const destination = await findOwnCliDestination(ctx, destinationId);
  // An attempt that reached a CLI: anything but "nobody connected", "left out by --filter" and a cancel.
  const reached = (a: string) => `${a}.status <> 'canceled' and ${a}.error is distinct from ? and ${a}.error is distinct from ?`;
  const rows = await ctx.em.getConnection().execute<Array<{ event_id: string }>>(
    `with connection as (
       select coalesce(max(connected_at), now()) as began from cli_sessions
        where destination_id = ? and heartbeat_at > now() - make_interval(secs => ?)),
     last_reached as (
       select a.id from delivery_attempts a, connection
        where a.destination_id = ? and a.created_at < connection.began and ${reached('a')}
        order by a.id desc limit 1)
     select a.event_id from delivery_attempts a
       join deliveries d on d.id = a.delivery_id
      where a.destination_id = ? and a.error = ? and d.status = 'skipped'
        and a.id > coalesce((select id from last_reached), '00000000-0000-0000-0000-000000000000')
        and (?::timestamptz is null or a.created_at >= ?::timestamptz)
        and not exists (select 1 from delivery_attempts r where r.event_id = a.event_id and r.destination_id = a.destination_id and r.id > a.id and ${reached('r')})
      group by a.event_id order by a.event_id limit ?`,
    [
      destination.id, CLI_STALE_AFTER_MS / 1000,
      destination.id, NO_CLI_CONNECTED, FILTERED_BY_SESSION,
      destination.id, NO_CLI_CONNECTED,
      input.since ?? null, input.since ?? null,
      NO_CLI_CONNECTED, FILTERED_BY_SESSION,
      CLI_MISSED_LIMIT,
    ],
  );
  return rows.map((r) => r.event_id);
}

/** `r` in the CLI: a new delivery of the event to this CLI destination only. */
export async function replayCliEvent(ctx: ProjectContext, destinationId: string, eventId: string): Promise<Delivery> {
  const destination = await findOwnCliDestination(ctx, destinationId);
  return replayEventToDestination(ctx, eventId, destination.id);
}

/**
 * The CLI's answer to one forward. True when the attempt was still waiting for
 * it (the first answer wins); false when it was already answered or has timed out.
 * The answer is stored, then the delivery's workflow is signalled (`cliAnswer`):
 * it waits on a durable timer, holding no worker slot, and records the attempt.
 * Should the signal fail, the workflow finds the stored answer when its wait ends.
 */
export async function reportCliForward(ctx: ProjectContext, input: CliForwardResultInput): Promise<boolean> {
  const result = {
    statusCode: input.statusCode ?? null,
    responseHeaders: input.responseHeaders ?? null,
    responseBody: input.responseBody ?? null,
    latencyMs: input.latencyMs,
    error: input.error ?? null,
    skipped: input.skipped ?? false,
  };
  const rows = await ctx.em.getConnection().execute<Array<{ id: string; delivery_id: string }>>(
    `update cli_forwards set result = ?::jsonb, answered_at = now()
      where id = ? and project_id = ? and result is null
     returning id, delivery_id`,
    [JSON.stringify(result), input.forwardId, ctx.project.id],
  );
  const answered = rows[0];
  if (!answered) return false;
  signalCliAnswer(ctx.container.temporal, answered.delivery_id, answered.id).catch((err: unknown) =>
    ctx.container.log.warn({ err, deliveryId: answered.delivery_id }, 'could not signal the CLI answer; the delivery records it when its wait ends'),
  );
  return true;
}
