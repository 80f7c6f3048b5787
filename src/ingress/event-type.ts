import type { EndpointProvider, TypingRule } from '../common/types';
import { evaluateConditions } from '../conditions/conditions';
import { type ConditionInput, getPath, parseFieldRef, resolveField } from '../conditions/field-path';

/** Typing rules per endpoint (docs/ingress.md#event-types). */
export const MAX_TYPING_RULES = 10;

export interface TypingConfig {
  provider: EndpointProvider | null;
  eventTypeHeader: string | null;
  eventTypePath: string | null;
  typingRules: readonly TypingRule[];
}

/** Header names of provider event types; unambiguous, so honoured on any endpoint. */
const PROVIDER_TYPE_HEADERS = ['x-codehosta-event', 'x-codehostb-event', 'trackerb-event'];

/** Scalars become text; objects, arrays, null and '' give nothing. */
function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function providerType(provider: EndpointProvider | null, input: ConditionInput): string | undefined {
  for (const name of PROVIDER_TYPE_HEADERS) {
    const value = scalarText(input.headers[name]);
    if (value) return value;
  }
  // Payload fields named `type` are too generic to trust unless the endpoint is bound to that provider.
  if (provider === 'payments_a') return scalarText(getPath(input.body, ['type']));
  if (provider === 'chat_a') return scalarText(getPath(input.body, ['event', 'type']));
  return undefined;
}

/** docs/ingress.md#event-types: conditions hold → parts joined; parts resolving to nothing are skipped; '' = no match. */
export function applyTypingRule(rule: TypingRule, input: ConditionInput): string | undefined {
  if (!evaluateConditions(rule.conditions ?? [], rule.logic ?? 'AND', input)) return undefined;
  const parts: string[] = [];
  for (const part of rule.parts ?? []) {
    if ('literal' in part) {
      if (part.literal) parts.push(part.literal);
      continue;
    }
    const ref = parseFieldRef(part.path);
    const text = ref ? scalarText(resolveField(ref, input)) : undefined;
    if (text) parts.push(text);
  }
  const joined = parts.join(rule.separator ?? '.');
  return joined === '' ? undefined : joined;
}

/**
 * docs/ingress.md#event-types, in priority order: provider headers/fields,
 * the endpoint's configured header, `event_type_path`, `X-Event-Type`, then
 * typing rules. Nothing found → '' (docs/ingress.md#event-types).
 */
export function extractEventType(config: TypingConfig, input: ConditionInput): string {
  const fromProvider = providerType(config.provider, input);
  if (fromProvider) return fromProvider;
  if (config.eventTypeHeader) {
    const value = scalarText(input.headers[config.eventTypeHeader.toLowerCase()]);
    if (value) return value;
  }
  if (config.eventTypePath) {
    const value = scalarText(getPath(input.body, config.eventTypePath.split('.')));
    if (value) return value;
  }
  const generic = scalarText(input.headers['x-event-type']);
  if (generic) return generic;
  for (const rule of config.typingRules.slice(0, MAX_TYPING_RULES)) {
    const value = applyTypingRule(rule, input);
    if (value) return value;
  }
  return '';
}
