import { renderAt, type TemplateData } from './template-engine';
import { truncateText } from './template-functions';

/**
 * The embed (docs/templates.md) rendered to plain strings,
 * with the limits of docs/templates.md applied after rendering: text is cut with
 * an ellipsis and extra fields are dropped; length never fails a delivery.
 * Lengths are UTF-16 code units, as the platforms count them.
 * chat_b sends it as is; chat_a and chat_c auto-convert it.
 */
export interface RenderedEmbed {
  title: string;
  url: string;
  description: string;
  color?: number;
  fields: Array<{ name: string; value: string; inline: boolean }>;
  footer: string;
  thumbnail: string;
  author: string;
  timestamp?: string;
}

export const EMBED_LIMITS = {
  title: 256,
  description: 4096,
  fieldName: 256,
  fieldValue: 1024,
  fields: 25,
  footer: 2048,
  author: 256,
  /** chat_b also refuses embeds whose texts add up to more than this. */
  total: 6000,
  content: 2000,
} as const;

const HTTP_URL = /^https?:\/\/\S+$/i;
const CANONICAL_ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function parseColor(raw: string): number | undefined {
  const text = raw.trim();
  const value = /^#[0-9a-f]{6}$/i.test(text) ? parseInt(text.slice(1), 16) : /^0x[0-9a-f]+$/i.test(text) ? parseInt(text, 16) : Number(text);
  return text !== '' && Number.isInteger(value) && value >= 0 && value <= 0xffffff ? value : undefined;
}

function timestampOf(setting: unknown, data: TemplateData, path: string, receivedAt: string): string | undefined {
  if (setting === true && CANONICAL_ISO.test(receivedAt)) return receivedAt;
  const source = setting === true ? receivedAt : typeof setting === 'string' ? renderAt(setting, data, 'text', path) : '';
  if (setting !== true && !source) return undefined;
  const date = new Date(/^\d+$/.test(source) ? Number(source) * 1000 : source || Date.now());
  return Number.isNaN(date.getTime()) ? new Date().toISOString() : date.toISOString();
}

export function isEmptyEmbed(e: RenderedEmbed): boolean {
  return !e.title && !e.description && e.fields.length === 0 && !e.footer && !e.author && !e.thumbnail;
}

/** Renders the embed keys of a variant; null when they render to nothing. */
export function renderEmbed(variant: Record<string, unknown>, data: TemplateData, prefix: string, receivedAt: string): RenderedEmbed | null {
  const text = (key: string) => renderAt(variant[key], data, 'text', prefix + key).trim();
  const link = (key: string) => {
    const url = text(key);
    return HTTP_URL.test(url) ? url : '';
  };
  const fields = (Array.isArray(variant.fields) ? variant.fields : [])
    .map((field, i) => {
      if (!field || typeof field !== 'object') return null;
      const f = field as Record<string, unknown>;
      const at = `${prefix}fields[${i}].`;
      return {
        name: renderAt(f.name, data, 'text', `${at}name`).trim(),
        value: renderAt(f.value, data, 'text', `${at}value`).trim(),
        inline: f.inline === true,
      };
    })
    .filter((f): f is RenderedEmbed['fields'][number] => f !== null && (f.name !== '' || f.value !== ''));
  const color = typeof variant.color === 'number' ? parseColor(String(variant.color)) : parseColor(text('color'));
  const embed: RenderedEmbed = {
    title: text('title'),
    url: link('url'),
    description: text('description'),
    color,
    fields,
    footer: text('footer'),
    thumbnail: link('thumbnail'),
    author: text('author'),
    timestamp: timestampOf(variant.timestamp, data, `${prefix}timestamp`, receivedAt),
  };
  return isEmptyEmbed(embed) ? null : applyEmbedLimits(embed);
}

function totalLength(e: RenderedEmbed): number {
  return e.fields.reduce((sum, f) => sum + f.name.length + f.value.length, e.title.length + e.description.length + e.footer.length + e.author.length);
}

export function applyEmbedLimits(e: RenderedEmbed): RenderedEmbed {
  const limited: RenderedEmbed = {
    ...e,
    title: truncateText(e.title, EMBED_LIMITS.title),
    description: truncateText(e.description, EMBED_LIMITS.description),
    footer: truncateText(e.footer, EMBED_LIMITS.footer),
    author: truncateText(e.author, EMBED_LIMITS.author),
    fields: e.fields.slice(0, EMBED_LIMITS.fields).map((f) => ({
      ...f,
      name: truncateText(f.name, EMBED_LIMITS.fieldName),
      value: truncateText(f.value, EMBED_LIMITS.fieldValue),
    })),
  };
  while (totalLength(limited) > EMBED_LIMITS.total && limited.fields.length > 0) limited.fields.pop();
  const excess = totalLength(limited) - EMBED_LIMITS.total;
  if (excess > 0) limited.description = truncateText(limited.description, Math.max(0, limited.description.length - excess));
  return limited;
}

/** The chat_b API shape; chat_b refuses empty field names and values, so those become a zero-width space. */
export function toChatBEmbed(e: RenderedEmbed): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (e.title) out.title = e.title;
  if (e.url) out.url = e.url;
  if (e.description) out.description = e.description;
  if (e.color !== undefined) out.color = e.color;
  if (e.fields.length) {
    out.fields = e.fields.map((f) => ({ name: f.name || '\u200b', value: f.value || '\u200b', ...(f.inline ? { inline: true } : {}) }));
  }
  if (e.footer) out.footer = { text: e.footer };
  if (e.thumbnail) out.thumbnail = { url: e.thumbnail };
  if (e.author) out.author = { name: e.author };
  if (e.timestamp) out.timestamp = e.timestamp;
  return out;
}
