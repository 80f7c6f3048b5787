import type { SendResult } from './send-result';

/**
 * Reading how long a receiver asks us to wait (docs/receiver-signals.md), in every form the
 * platforms use: the `Retry-After` header (delay-seconds or an HTTP date),
 * a JSON `retry_after` in seconds (possibly fractional), a nested
 * `parameters.retry_after`, and `X-RateLimit-Reset-After`; and the other
 * signals a receiver's answer carries (410 Gone, 503 with Retry-After).
 *
 * Every wait a receiver asks for is clamped to [MIN_RETRY_AFTER_MS, MAX_RETRY_AFTER_MS]: a zero, a
 * date in the past or a tiny fraction would otherwise re-send in a tight loop, an absurd one would
 * hold the delivery for days.
 */
export const MIN_RETRY_AFTER_MS = 1000;
export const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;
/** Used when a 429 says nothing readable about how long to wait. */
export const DEFAULT_RETRY_AFTER_MS = 5_000;

/** A receiver's requested wait, within the floor and the ceiling. */
export function clampRetryAfter(ms: number): number {
  return Math.min(Math.max(Number.isFinite(ms) ? ms : MAX_RETRY_AFTER_MS, MIN_RETRY_AFTER_MS), MAX_RETRY_AFTER_MS);
}

/** `Retry-After` header value → milliseconds as written (0 for a past date), or null when absent or unreadable. */
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
  /** The platform says the limit covers every request of the credential (not one route or channel). */
  global: boolean;
}

/** The wait a chat platform's 429 asks for, from its body first (more precise), then its headers; clamped. */
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
  return { retryAfterMs: clampRetryAfter(waitMs), global };
}

/** A 429's or 503's `Retry-After`, clamped; undefined without a readable one. */
export function webhookRetryAfterMs(headers: Record<string, string>, now: number = Date.now()): number | undefined {
  const ms = parseRetryAfterHeader(headers['retry-after'], now);
  return ms === null ? undefined : clampRetryAfter(ms);
}

/** What a receiver's answer asks beyond success or failure (docs/delivery.md "Retries, timeouts and what receivers can say"). */
export type ReceiverSignals = Pick<SendResult, 'retryAfterMs' | 'unavailable' | 'gone' | 'permanent'>;

/**
 * Reads a receiver's own signals from a failed answer, for webhook and chat destinations alike:
 * - 410 Gone: the URL is gone for good; failing at once and pausing the destination beats retrying;
 * - 503 with `Retry-After`: down for a known time; waited out like a chat platform's 429 (bounded by the retry schedule);
 * - 429 with `Retry-After` (webhooks; a chat platform's 429 is read by parseRateLimit): the next retry waits at least that long.
 */
export function receiverSignals(statusCode: number, headers: Record<string, string>, now: number = Date.now()): ReceiverSignals {
  if (statusCode === 410) return { gone: true, permanent: true };
  if (statusCode !== 429 && statusCode !== 503) return {};
  const retryAfterMs = webhookRetryAfterMs(headers, now);
  if (retryAfterMs === undefined) return {};
  return statusCode === 503 ? { retryAfterMs, unavailable: { retryAfterMs } } : { retryAfterMs };
}

/** A failed answer with the receiver's own signals read into it (the error says when the destination is paused). */
export function withReceiverSignals(result: SendResult, headers: Record<string, string>, now: number = Date.now()): SendResult {
  const signals = receiverSignals(result.statusCode ?? 0, headers, now);
  if (signals.gone) result.error = `${result.error ?? 'HTTP 410 Gone'}: the receiver says this URL is gone; the destination is paused`;
  return Object.assign(result, signals);
}
