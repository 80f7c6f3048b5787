/**
 * The template function library (docs/templates.md). Every function takes the
 * piped value first: `{{ .x | truncate 20 }}` and `{{ truncate .x 20 }}` both
 * call `truncate(x, 20)`. Functions never throw on odd input: a webhook
 * payload is untrusted and a delivery must not fail because a field has an
 * unexpected type.
 */

/** Text already escaped for HTML (chat_c): output as is, never escaped twice. */
export class SafeHtml {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

/** How any value prints: missing as empty, scalars as text, objects and arrays as JSON. */
export function toText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (value instanceof SafeHtml) return value.html;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (ch) => HTML_ESCAPES[ch]);
}

/** Own properties only: templates can never reach prototypes (`constructor`, `__proto__`). */
export function getMember(value: unknown, key: unknown): unknown {
  if (value === null || typeof value !== 'object' || value instanceof SafeHtml) return undefined;
  const name = typeof key === 'number' ? String(key) : key;
  if (typeof name !== 'string') return undefined;
  if (Array.isArray(value)) return /^\d+$/.test(name) ? value[Number(name)] : undefined;
  return Object.prototype.hasOwnProperty.call(value, name) ? (value as Record<string, unknown>)[name] : undefined;
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function toInt(value: unknown, fallback: number): number {
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** Accepts an ISO string, unix seconds, or unix milliseconds. */
function toDate(value: unknown): Date | null {
  if (value instanceof Date) return value;
  let date: Date | null = null;
  if (typeof value === 'number' && Number.isFinite(value)) date = new Date(value < 1e11 ? value * 1000 : value);
  else if (typeof value === 'string' && value.trim() !== '') {
    date = /^\d+(\.\d+)?$/.test(value.trim()) ? toDate(Number(value)) : new Date(value);
  }
  return date && !Number.isNaN(date.getTime()) ? date : null;
}

const NAMED_DATE_FORMATS: Record<string, string> = {
  datetime: 'YYYY-MM-DD HH:mm UTC',
  date: 'YYYY-MM-DD',
  time: 'HH:mm:ss',
};

/** Formats in UTC. Tokens: YYYY MM DD HH mm ss SSS; names: datetime (default), date, time, iso, unix. */
function formatDate(value: unknown, format?: unknown): string {
  const date = toDate(value);
  if (!date) return toText(value);
  const fmt = typeof format === 'string' && format !== '' ? format : 'datetime';
  if (fmt === 'iso') return date.toISOString();
  if (fmt === 'unix') return String(Math.floor(date.getTime() / 1000));
  const pattern = NAMED_DATE_FORMATS[fmt] ?? fmt;
  return pattern.replace(/YYYY|SSS|MM|DD|HH|mm|ss/g, (token) => {
    switch (token) {
      case 'YYYY':
        return String(date.getUTCFullYear());
      case 'MM':
        return pad(date.getUTCMonth() + 1);
      case 'DD':
        return pad(date.getUTCDate());
      case 'HH':
        return pad(date.getUTCHours());
      case 'mm':
        return pad(date.getUTCMinutes());
      case 'ss':
        return pad(date.getUTCSeconds());
      default:
        return pad(date.getUTCMilliseconds(), 3);
    }
  });
}

/**
 * Cuts to at most `length` UTF-16 code units (the unit the chat platforms
 * count in), ending with `suffix` when cut; never splits a surrogate pair.
 */
export function truncateText(text: string, length: number, suffix = '…'): string {
  if (text.length <= length) return text;
  return cutUtf16(text, Math.max(0, length - suffix.length)).trimEnd() + suffix;
}

/** The first `units` UTF-16 code units, one fewer when that would split a surrogate pair. */
export function cutUtf16(text: string, units: number): string {
  const code = text.charCodeAt(units - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? units - 1 : units);
}

export const TEMPLATE_FUNCTIONS = {
  upper: (v: unknown) => toText(v).toUpperCase(),
  lower: (v: unknown) => toText(v).toLowerCase(),
  title: (v: unknown) => toText(v).replace(/(^|[\s_-])(\p{L})/gu, (_m, sep: string, ch: string) => sep + ch.toUpperCase()),
  trim: (v: unknown) => toText(v).trim(),
  truncate: (v: unknown, length?: unknown, suffix?: unknown) =>
    truncateText(toText(v), Math.max(0, toInt(length, 100)), suffix === undefined ? '…' : toText(suffix)),
  default: (v: unknown, fallback?: unknown) => (isBlank(v) ? fallback : v),
  json: (v: unknown, indent?: unknown) => {
    if (v === undefined) return '';
    try {
      return JSON.stringify(v, null, indent === undefined ? undefined : Math.min(8, Math.max(0, toInt(indent, 0)))) ?? '';
    } catch {
      return '';
    }
  },
  join: (v: unknown, separator?: unknown) =>
    Array.isArray(v) ? v.map(toText).join(separator === undefined ? ', ' : toText(separator)) : toText(v),
  date: formatDate,
  markdown_escape: (v: unknown) => toText(v).replace(/[\\*_~`|>[\]()#]/g, '\\$&'),
  html_escape: (v: unknown) => new SafeHtml(escapeHtml(toText(v))),
  mrkdwn_escape: (v: unknown) => toText(v).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'),
  urlencode: (v: unknown) => encodeURIComponent(toText(v)),
  replace: (v: unknown, search?: unknown, replacement?: unknown) => toText(v).split(toText(search)).join(toText(replacement)),
  len: (v: unknown) =>
    Array.isArray(v) ? v.length : v && typeof v === 'object' ? Object.keys(v).length : Array.from(toText(v)).length,
  index: (v: unknown, ...keys: unknown[]) => keys.reduce<unknown>((current, key) => getMember(current, key), v),
  first: (v: unknown) => (Array.isArray(v) ? v[0] : Array.from(toText(v))[0]),
  last: (v: unknown) => (Array.isArray(v) ? v[v.length - 1] : Array.from(toText(v)).at(-1)),
} satisfies Record<string, (value: unknown, ...args: unknown[]) => unknown>;

export type TemplateFunctionName = keyof typeof TEMPLATE_FUNCTIONS;

export const TEMPLATE_FUNCTION_NAMES = Object.keys(TEMPLATE_FUNCTIONS) as TemplateFunctionName[];
