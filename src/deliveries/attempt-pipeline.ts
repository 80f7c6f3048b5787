import type { Knex } from '@mikro-orm/postgresql';
import type { Logger } from '../common/logger';
import { RawJson } from '../common/raw-json';
import type { SecretBox } from '../common/secret-box';
import type { CliForwarder, CliForwardOut } from '../cli-sessions/cli-forwarder';
import type { Config } from '../config/config';
import { destinationSigningSecrets } from '../destinations/destination-secret.service';
import { TemplateRenderError } from '../formatting/errors';
import { buildTemplateMeta, type FormattedDelivery, formatDelivery } from '../formatting/format-delivery';
import { isChatPlatform } from '../formatting/index';
import { defaultOperationalTemplate } from '../operational-events/default-templates';
import { type SelectedRoute, selectRoute } from '../routing/select-route';
import { sendChatMessage } from '../sending/chat.sender';
import type { PlatformCooldowns } from '../sending/platform-cooldowns';
import { notSent, type SendResult } from '../sending/send-result';
import { sendWebhook } from '../sending/webhook.sender';
import { TransformError } from '../transforms/transform-runner';
import type { AttemptContext } from './attempt-store';

export interface PipelineDeps {
  config: Config;
  secrets: SecretBox;
  cooldowns: PlatformCooldowns;
  knex: Knex;
  log: Pick<Logger, 'error'>;
  /** `cli` destinations: the hand-off to the `listen` tunnel (src/cli-sessions/cli-forwarder.ts). */
  cliForwarder: Pick<CliForwarder, 'begin'>;
}

/** docs/delivery.md#private-networks: development and test allow private addresses; production only when told to. */
export function allowPrivateNetworks(config: Pick<Config, 'NODE_ENV' | 'RELAY_ALLOW_PRIVATE_NETWORKS'>): boolean {
  return config.NODE_ENV !== 'production' || config.RELAY_ALLOW_PRIVATE_NETWORKS;
}

function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/** The template config and transform expression of the picked route (one query; none when it picks nothing). */
async function loadRoute(knex: Knex, ctx: AttemptContext, route: SelectedRoute | null): Promise<{ templateConfig: Record<string, unknown> | null; transformExpression: string | null }> {
  if (!route || (!route.templateId && !route.transformId)) return { templateConfig: null, transformExpression: null };
  const { rows } = await knex.raw(
    `select (select config from message_templates where id = ? and project_id = ?) as template_config,
            (select expression from transforms where id = ? and project_id = ?) as transform_expression`,
    [route.templateId, ctx.projectId, route.transformId, ctx.projectId],
  );
  return { templateConfig: rows[0].template_config, transformExpression: rows[0].transform_expression };
}

/**
 * A fault of ours, not of the user's rule, template or transform: a failed attempt like any other, so the destination's
 * retry policy bounds it (a fixed worker may yet deliver it) and the last one dead-letters it with this reason.
 * Rethrown, the activity's retry would repeat it forever.
 */
function internalError(ctx: AttemptContext, deps: PipelineDeps, doing: string, err: unknown): SendResult {
  deps.log.error({ err, deliveryId: ctx.deliveryId, destinationId: ctx.destination.id }, `internal error while ${doing}`);
  return notSent(ctx.payload, `Internal error while ${doing}: ${errorText(err)}`);
}

/**
 * One attempt's work before recording: pick the route (docs/templates.md#routing-rules),
 * transform, render (chat types) and send. Never throws for a delivery
 * problem: a failure is a SendResult, `permanent` when retrying cannot help
 * (a transform or template error, docs/templates.md#transforms-jsonata; missing configuration). A `cli`
 * destination's forward is handed to the tunnel and not waited for (CliForwardOut).
 * Reading the route's template and transform may throw (a database error): the activity's own retry is for that.
 */
export async function sendAttempt(ctx: AttemptContext, deps: PipelineDeps): Promise<SendResult | CliForwardOut> {
  const { destination } = ctx;
  const timeoutMs = deps.config.RELAY_DELIVERY_TIMEOUT_MS;
  let selected: SelectedRoute | null;
  try {
    selected = ctx.link && selectRoute(ctx.link, { headers: ctx.headers, body: ctx.payload });
  } catch (err) {
    return internalError(ctx, deps, 'selecting a routing rule', err);
  }
  const route = await loadRoute(deps.knex, ctx, selected);
  const transformed = route.transformExpression !== null;
  let formatted: FormattedDelivery;
  try {
    formatted = await formatDelivery({
      destinationType: destination.type,
      ...route,
      // An operational event with no template of the user's gets its readable built-in one (chat types only use it).
      templateConfig: route.templateConfig ?? (ctx.system ? defaultOperationalTemplate(ctx.eventType) : null),
      payload: ctx.payload,
      meta: buildTemplateMeta({ ...ctx, destinationId: destination.id }),
    });
  } catch (err) {
    if (err instanceof TransformError || err instanceof TemplateRenderError) {
      return notSent(ctx.payload, err.message, { permanent: true, failure: err instanceof TransformError ? 'transform_error' : 'template_error' });
    }
    return internalError(ctx, deps, 'formatting the message (not a template or transform error)', err);
  }

  if (destination.type === 'webhook') {
    if (!destination.webhookUrlEnc) return notSent(formatted.body, 'the destination has no webhook_url', { permanent: true });
    return sendWebhook({
      url: deps.secrets.open(destination.webhookUrlEnc),
      // Untransformed, the body goes out byte for byte as received (JSON.parse would round big numbers).
      payload: transformed ? formatted.body : new RawJson(ctx.payloadText),
      headerPrefix: ctx.headerPrefix,
      eventId: ctx.eventId,
      endpointId: ctx.endpointId,
      deliveryId: ctx.deliveryId,
      signing: destinationSigningSecrets(destination, deps.secrets),
      timeoutMs,
      allowPrivateNetworks: allowPrivateNetworks(deps.config),
    });
  }
  if (isChatPlatform(destination.type)) {
    return sendChatMessage(
      {
        platform: destination.type,
        webhookUrl: deps.secrets.openOptional(destination.webhookUrlEnc),
        botToken: deps.secrets.openOptional(destination.botTokenEnc),
        channelId: destination.channelId,
        guildId: destination.guildId,
        message: formatted.body as Record<string, unknown>,
        eventId: ctx.eventId,
        timeoutMs,
        allowPrivateNetworks: allowPrivateNetworks(deps.config),
      },
      deps,
    );
  }
  // `cli`: the local server behind `relay listen` answers through the tunnel.
  return deps.cliForwarder.begin({
    ctx,
    transformed: transformed ? { payload: formatted.body } : null,
    signing: destinationSigningSecrets(destination, deps.secrets),
    timeoutMs,
  });
}
