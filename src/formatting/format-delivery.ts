import type { DestinationType } from '../common/types';
import { runTransform } from '../transforms/transform-runner';
import { isChatPlatform, renderMessage, type TemplateMeta } from './index';

/**
 * One destination's formatting step of a delivery (docs/delivery.md):
 * transform (if any), then the chat message (chat types) or the payload as
 * is (`webhook`, `cli`: templates never apply). Throws TransformError or
 * TemplateRenderError; both are permanent for that delivery (docs/templates.md#transforms-jsonata).
 */

export interface FormatDeliveryInput {
  destinationType: DestinationType;
  templateConfig: Record<string, unknown> | null | undefined;
  transformExpression: string | null | undefined;
  payload: unknown;
  meta: TemplateMeta;
  transformTimeoutMs?: number;
}

export interface FormattedDelivery {
  /** The payload after the transform (the original when there is none). */
  payload: unknown;
  /** What is sent: the chat message body, or the payload for webhook/cli. */
  body: unknown;
}

export async function formatDelivery(input: FormatDeliveryInput): Promise<FormattedDelivery> {
  const payload = input.transformExpression
    ? await runTransform(input.transformExpression, input.payload, { timeoutMs: input.transformTimeoutMs })
    : input.payload;
  const body = isChatPlatform(input.destinationType)
    ? renderMessage({ platform: input.destinationType, templateConfig: input.templateConfig, payload, meta: input.meta })
    : payload;
  return { payload, body };
}

export function buildTemplateMeta(source: {
  eventType: string;
  eventId: string;
  endpointId: string;
  endpointSlug: string;
  destinationId: string;
  receivedAt: Date | string;
  headers: Record<string, string> | null | undefined;
}): TemplateMeta {
  return {
    EventType: source.eventType,
    EventID: source.eventId,
    EndpointID: source.endpointId,
    EndpointSlug: source.endpointSlug,
    DestinationID: source.destinationId,
    ReceivedAt: new Date(source.receivedAt).toISOString(),
    Headers: source.headers ?? {},
  };
}
