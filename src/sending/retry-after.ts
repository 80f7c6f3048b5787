/**
 * Reading how long a 429 asks us to wait (docs/behaviour.md#rate-limited), in every form the
 * platforms use: the `Retry-After` header (delay-seconds or an HTTP date),
 * a JSON `retry_after` in seconds (possibly fractional), a nested
 * `parameters.retry_after`, and `X-RateLimit-Reset-After`.
 */
export const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;
/** Used when a 429 says nothing about how long to wait. */
export const DEFAULT_RETRY_AFTER_MS = 5_000;

/** `Retry-After` header value → milliseconds, or null when absent or unreadable. */
export function parseRetryAfterHeader(value: string | undefined | null, now: number = Date.now()): number | null {
  if (value === undefined || value === null) return null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function seconds(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.ceil(n * 1000) : null;
}

export interface RateLimit {
  retryAfterMs: number;
  /** The platform says the limit covers every request (not one route or channel). */
  global: boolean;
}

/** The wait a chat platform's 429 asks for, from its body first (more precise), then its headers. */
export function parseRateLimit(headers: Record<string, string>, body: unknown, now: number = Date.now()): RateLimit {
  const json = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const parameters = json.parameters && typeof json.parameters === 'object' ? (json.parameters as Record<string, unknown>) : {};
  const waitMs =
    seconds(json.retry_after) ??
    seconds(parameters.retry_after) ??
    parseRetryAfterHeader(headers['retry-after'], now) ??
    seconds(headers['x-ratelimit-reset-after']) ??
    DEFAULT_RETRY_AFTER_MS;
  const global =
    json.global === true || headers['x-ratelimit-global']?.toLowerCase() === 'true' || headers['x-ratelimit-scope']?.toLowerCase() === 'global';
  return { retryAfterMs: Math.min(waitMs, MAX_RETRY_AFTER_MS), global };
}

/** A webhook destination's 429: the next retry waits at least this long (capped at one hour). */
export function webhookRetryAfterMs(headers: Record<string, string>, now: number = Date.now()): number | undefined {
  const ms = parseRetryAfterHeader(headers['retry-after'], now);
  return ms === null ? undefined : Math.min(ms, MAX_RETRY_AFTER_MS);
}
