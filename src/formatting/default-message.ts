import type { RenderedEmbed } from './embed';
import { applyEmbedLimits } from './embed';
import { toText, truncateText } from './template-functions';

/**
 * The message sent when a chat destination has no template (or its template
 * renders to nothing): the event type as title, a summary line taken from a
 * well-known payload field, and the payload's first top-level fields.
 */

const SUMMARY_KEYS = ['message', 'title', 'summary', 'text', 'description'];
const NAME_KEYS = ['name', 'full_name', 'login', 'username', 'title', 'email', 'id'];
const MAX_FIELDS = 10;
const MAX_VALUE = 200;

/** A short text for any payload value: nested objects by their name-like key, arrays by their size. */
function describe(value: unknown): string {
  if (Array.isArray(value)) return `${value.length} item${value.length === 1 ? '' : 's'}`;
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const key = NAME_KEYS.find((k) => typeof obj[k] === 'string' || typeof obj[k] === 'number');
    return truncateText(key ? toText(obj[key]) : toText(value), MAX_VALUE);
  }
  return truncateText(toText(value), MAX_VALUE);
}

export function defaultSummary(eventType: string): string {
  return eventType ? `New ${eventType} event` : 'New webhook event';
}

export function defaultEmbed(payload: unknown, meta: { EventType: string; EndpointSlug: string; ReceivedAt: string }): RenderedEmbed {
  const embed: RenderedEmbed = {
    title: meta.EventType || 'New webhook event',
    url: '',
    description: '',
    fields: [],
    footer: meta.EndpointSlug ? `via ${meta.EndpointSlug}` : '',
    thumbnail: '',
    author: '',
    timestamp: Number.isNaN(Date.parse(meta.ReceivedAt)) ? undefined : new Date(meta.ReceivedAt).toISOString(),
  };
  if (payload && typeof payload === 'object' && !Array.isArray(payload)) {
    const obj = payload as Record<string, unknown>;
    const summaryKey = SUMMARY_KEYS.find((k) => typeof obj[k] === 'string' && obj[k] !== '');
    if (summaryKey) embed.description = truncateText(obj[summaryKey] as string, 1000);
    embed.fields = Object.entries(obj)
      .filter(([key, value]) => key !== summaryKey && value !== null && value !== undefined && value !== '')
      .slice(0, MAX_FIELDS)
      .map(([key, value]) => {
        const text = describe(value);
        return { name: key, value: text, inline: text.length <= 40 };
      });
  } else if (payload !== undefined && payload !== null) {
    embed.description = '```json\n' + truncateText(toText(payload), 1000) + '\n```';
  }
  return applyEmbedLimits(embed);
}
