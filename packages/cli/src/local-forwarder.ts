import { CliError, EXIT } from './cli-errors';
import { postJson } from './local-post';
import { CLI_MAX_DELAY_MS, REPORTED_BODY_LIMIT_BYTES } from './shared/limits';
import { truncateUtf8 } from './shared/utf8';
import type { CliForwardView, ForwardResult } from './shared/wire';

/** One forward the API hands the CLI on the `cliForwards` subscription. */
export type CliForward = CliForwardView;
export type { ForwardResult };
/** The local server gets as long as a webhook destination does (docs/concepts.md#events-deliveries-and-attempts). */
export const LOCAL_TIMEOUT_MS = 30_000;

export function parsePort(value: string): number {
  const port = /^\d{1,5}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new CliError(`invalid port "${value}": the port must be a number from 1 to 65535`, EXIT.usage);
  }
  return port;
}

/** `--path`: where on the local server events go; always starts with "/". */
export function parseForwardPath(value: string): string {
  const trimmed = value.trim();
  if (/[\s#]/.test(trimmed) || /^[a-z][a-z0-9+.-]*:/i.test(trimmed)) {
    throw new CliError(`invalid path "${value}": give a path such as /webhooks (no scheme, host, spaces or #)`, EXIT.usage);
  }
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

export function parseDelayMs(value: string): number {
  const delay = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isInteger(delay) || delay > CLI_MAX_DELAY_MS) throw new CliError(`invalid delay "${value}": give milliseconds from 0 to ${CLI_MAX_DELAY_MS}`, EXIT.usage);
  return delay;
}

export interface LocalRequest {
  url: string;
  /** `--header`s and X-Forwarded-Host: added to the event's headers (and win over them). */
  extraHeaders?: Record<string, string>;
  /** `--insecure`: accept a self-signed certificate. */
  insecure?: boolean;
  timeoutMs?: number;
}

/** What the local server gets: the event's headers (lower-case names), then the `extraHeaders`, which win. */
export function localHeaders(forward: Pick<CliForward, 'headers'>, extraHeaders: Record<string, string> = {}): Record<string, string> {
  const headers = Object.fromEntries(Object.entries(forward.headers).map(([name, value]) => [name.toLowerCase(), String(value)]));
  return Object.assign(headers, extraHeaders);
}

/** POSTs the forward's exact body and headers to the local server; never throws (the result says what happened). */
export async function forwardLocally(forward: CliForward, local: LocalRequest): Promise<ForwardResult> {
  const headers = localHeaders(forward, local.extraHeaders);
  const timeoutMs = local.timeoutMs ?? LOCAL_TIMEOUT_MS;
  const outcome = await postJson(local.url, forward.body, { timeoutMs, headers, insecureTls: local.insecure });
  if ('error' in outcome) {
    return { forwardId: forward.id, statusCode: null, responseHeaders: null, responseBody: null, latencyMs: outcome.latencyMs, error: outcome.error };
  }
  return {
    forwardId: forward.id,
    statusCode: outcome.statusCode,
    responseHeaders: outcome.headers,
    responseBody: truncateUtf8(outcome.body, REPORTED_BODY_LIMIT_BYTES).text,
    latencyMs: outcome.latencyMs,
    error: null,
  };
}

/** The answer for a forward that arrived while paused: not sent, recorded by the API as a permanent failure. */
export const skippedResult = (forward: CliForward): ForwardResult => ({
  forwardId: forward.id,
  statusCode: null,
  responseHeaders: null,
  responseBody: null,
  latencyMs: 0,
  error: 'paused in the CLI: not forwarded',
  skipped: true,
});
