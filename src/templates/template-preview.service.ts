import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError, ValidationError } from '../common/errors';
import { DESTINATION_TYPES, type DestinationType } from '../common/types';
import { WebhookEndpoint } from '../endpoints/endpoint.entity';
import { Event } from '../events/event.entity';
import { buildTemplateMeta } from '../formatting/format-delivery';
import { isChatPlatform, renderMessage, TemplateRenderError, type TemplateMeta } from '../formatting/index';
import { runTransform, TransformError, validateTransformExpression } from '../transforms/transform-runner';
import { Transform } from '../transforms/transform.entity';
import { MessageTemplate } from './message-template.entity';
import { validateTemplateConfig } from './template-config';

/**
 * Template preview (docs/templates.md): renders a template and/or transform
 * against a sample payload or a stored event and returns exactly what each
 * destination type would receive. Never sends anything. REST and GraphQL
 * expose this one function.
 */

export interface PreviewInput {
  template_id?: string | null;
  template_config?: Record<string, unknown> | null;
  transform_id?: string | null;
  transform_expression?: string | null;
  payload?: unknown;
  event_id?: string | null;
  /** Event type of a sample payload (`.Meta.EventType`); a stored event has its own. */
  event_type?: string | null;
  destination_types?: DestinationType[] | null;
}

export interface PreviewError {
  stage: 'transform' | 'template';
  /** Template config path of the faulty string, e.g. `platforms.chat_b.fields[2].value`. */
  path?: string;
  /** Line inside that template string. */
  line?: number;
  /** Character position inside the transform expression. */
  position?: number;
  message: string;
}

export interface PreviewResult {
  transformed_payload: unknown;
  /** Per destination type: the message body (chat types) or the payload as sent (webhook, cli); null when it could not be built. */
  outputs: Partial<Record<DestinationType, unknown>>;
  errors: PreviewError[];
}

const DEFAULT_TYPES: DestinationType[] = ['webhook', 'chat_a', 'chat_b', 'chat_c'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The template config and transform expression behind a link's (or a CLI session's) ids, scoped to the project. */
export async function loadFormattingSources(
  em: EntityManager,
  projectId: string,
  ids: { templateId?: string | null; transformId?: string | null },
): Promise<{ templateConfig: Record<string, unknown> | null; transformExpression: string | null }> {
  const { templateId, transformId } = ids;
  const template = templateId && UUID.test(templateId) ? await em.findOne(MessageTemplate, { id: templateId, project: projectId }) : null;
  if (templateId && !template) throw new NotFoundError('Template', templateId);
  const transform = transformId && UUID.test(transformId) ? await em.findOne(Transform, { id: transformId, project: projectId }) : null;
  if (transformId && !transform) throw new NotFoundError('Transform', transformId);
  return { templateConfig: template?.config ?? null, transformExpression: transform?.expression ?? null };
}

function checkInput(input: PreviewInput): DestinationType[] {
  if (input.template_id && input.template_config) throw new ValidationError('Give template_id or template_config, not both.', { field: 'template_config' });
  if (input.transform_id && input.transform_expression) {
    throw new ValidationError('Give transform_id or transform_expression, not both.', { field: 'transform_expression' });
  }
  if (input.payload === undefined && !input.event_id) {
    throw new ValidationError('Give a sample payload or the event_id of a stored event to preview against.', { field: 'payload' });
  }
  const types = input.destination_types?.length ? input.destination_types : DEFAULT_TYPES;
  const unknown = types.find((t) => !(DESTINATION_TYPES as readonly string[]).includes(t));
  if (unknown) throw new ValidationError(`Unknown destination type "${unknown}": use ${DESTINATION_TYPES.join(', ')}.`, { field: 'destination_types' });
  return [...new Set(types)];
}

async function sourceEvent(em: EntityManager, projectId: string, input: PreviewInput): Promise<{ payload: unknown; meta: TemplateMeta }> {
  if (input.event_id) {
    const event = UUID.test(input.event_id) ? await em.findOne(Event, { id: input.event_id, projectId }) : null;
    if (!event) throw new NotFoundError('Event', input.event_id);
    const endpoint = await em.findOne(WebhookEndpoint, { id: event.endpointId }, { fields: ['slug'] });
    const meta = buildTemplateMeta({
      eventType: event.eventType,
      eventId: event.id,
      endpointId: event.endpointId,
      endpointSlug: endpoint?.slug ?? '',
      destinationId: '',
      receivedAt: event.createdAt,
      headers: event.headers,
    });
    return { payload: input.payload !== undefined ? input.payload : event.payload, meta };
  }
  const meta = buildTemplateMeta({
    eventType: input.event_type ?? '',
    eventId: 'preview',
    endpointId: '',
    endpointSlug: 'preview',
    destinationId: '',
    receivedAt: new Date(),
    headers: {},
  });
  return { payload: input.payload, meta };
}

export async function previewFormatting(ctx: { em: EntityManager; projectId: string }, input: PreviewInput): Promise<PreviewResult> {
  const types = checkInput(input);
  const sources = await loadFormattingSources(ctx.em, ctx.projectId, { templateId: input.template_id, transformId: input.transform_id });
  const templateConfig = input.template_config ?? sources.templateConfig;
  const expression = input.transform_expression ?? sources.transformExpression;
  const { payload, meta } = await sourceEvent(ctx.em, ctx.projectId, input);
  const errors: PreviewError[] = [];
  const outputs: PreviewResult['outputs'] = {};

  let transformed: unknown = payload;
  if (expression) {
    const invalid = validateTransformExpression(expression);
    try {
      if (invalid) throw new TransformError('transform_failed', invalid.message, invalid.position);
      transformed = await runTransform(expression, payload);
    } catch (err) {
      if (!(err instanceof TransformError)) throw err;
      errors.push({ stage: 'transform', message: err.message, ...(err.position !== undefined ? { position: err.position } : {}) });
      for (const type of types) outputs[type] = null;
      return { transformed_payload: null, outputs, errors };
    }
  }

  const configProblems = templateConfig ? validateTemplateConfig(templateConfig) : [];
  errors.push(...configProblems.map((p) => ({ stage: 'template' as const, ...p })));
  for (const type of types) {
    if (!isChatPlatform(type)) {
      outputs[type] = transformed;
      continue;
    }
    if (configProblems.length) {
      outputs[type] = null;
      continue;
    }
    try {
      outputs[type] = renderMessage({ platform: type, templateConfig, payload: transformed, meta: { ...meta, DestinationID: '' } });
    } catch (err) {
      if (!(err instanceof TemplateRenderError)) throw err;
      errors.push({ stage: 'template', path: err.path, ...(err.line ? { line: err.line } : {}), message: err.reason });
      outputs[type] = null;
    }
  }
  return { transformed_payload: transformed, outputs, errors };
}
