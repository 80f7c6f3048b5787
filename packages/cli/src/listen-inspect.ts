import { truncateUtf8 } from './shared/utf8';
import type { ForwardResult } from './local-forwarder';

/**
 * Inspecting what `relay listen` forwarded (docs/internals/cli-tunnel.md "The screen"):
 * the request the local server got and its response, the first 4 KiB of each
 * body, for `d` on the selected line (↑/↓) and in every `--output json` line.
 */

/** How much of each body the detail shows. */
export const DETAIL_BODY_BYTES = 4096;

export interface BodyExcerpt {
  text: string;
  truncated: boolean;
}

export interface ForwardDetail {
  request: { method: 'POST'; url: string; headers: Record<string, string>; body: BodyExcerpt };
  /** Null when nothing was sent (paused). */
  response: { status: number | null; headers: Record<string, string>; body: BodyExcerpt | null; error: string | null } | null;
}

const excerpt = (text: string): BodyExcerpt => truncateUtf8(Buffer.from(text, 'utf8'), DETAIL_BODY_BYTES);

export function forwardDetail(request: { url: string; headers: Record<string, string>; body: string }, result: ForwardResult): ForwardDetail {
  return {
    request: { method: 'POST', url: request.url, headers: request.headers, body: excerpt(request.body) },
    response: result.skipped
      ? null
      : {
          status: result.statusCode,
          headers: result.responseHeaders ?? {},
          body: result.responseBody === null ? null : excerpt(result.responseBody),
          error: result.error,
        },
  };
}

/** The detail as `--output json` carries it (snake_case, as the other keys). */
export function detailJson(detail: ForwardDetail): Record<string, unknown> {
  const { request, response } = detail;
  return {
    request: { method: request.method, url: request.url, headers: request.headers, body: request.body.text, body_truncated: request.body.truncated },
    response: response && {
      status: response.status,
      headers: response.headers,
      body: response.body?.text ?? null,
      body_truncated: response.body?.truncated ?? false,
      error: response.error,
    },
  };
}

const headerLines = (headers: Record<string, string>) =>
  Object.entries(headers)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `    ${name}: ${value}`);

const bodyLines = (body: BodyExcerpt | null) =>
  body === null || body.text === ''
    ? ['    (empty body)']
    : [...body.text.split('\n').map((l) => `    ${l}`), ...(body.truncated ? [`    … (first ${DETAIL_BODY_BYTES} bytes shown)`] : [])];

/** `d`: the request and the response, headers then body, as plain lines. */
export function formatDetail(title: string, detail: ForwardDetail): string[] {
  const { request, response } = detail;
  const answer = !response
    ? ['  response  none: paused, not sent']
    : response.status === null
      ? [`  response  none: ${response.error ?? 'the local request failed'}`]
      : [`  response  ${response.status}`, ...headerLines(response.headers), '', ...bodyLines(response.body)];
  return [`── ${title} ──`, `  request  ${request.method} ${request.url}`, ...headerLines(request.headers), '', ...bodyLines(request.body), ...answer, '──'];
}

/** The lines forwarded so far (the last 200), and which one ↑/↓ selected: none chosen means the newest. */
export class ForwardHistory<T> {
  private readonly entries: T[] = [];
  private selected: number | null = null;

  constructor(private readonly limit = 200) {}

  add(entry: T): void {
    this.entries.push(entry);
    if (this.entries.length > this.limit) {
      this.entries.shift();
      if (this.selected !== null) this.selected = Math.max(0, this.selected - 1);
    }
  }

  /** ↑ (-1) / ↓ (+1) from the selected line (the newest when none is); stops at either end. */
  move(delta: number): { entry: T; index: number; count: number } | undefined {
    if (this.entries.length === 0) return undefined;
    const from = this.selected ?? this.entries.length - 1;
    this.selected = Math.min(this.entries.length - 1, Math.max(0, from + delta));
    return { entry: this.entries[this.selected], index: this.selected + 1, count: this.entries.length };
  }

  get current(): T | undefined {
    return this.entries[this.selected ?? this.entries.length - 1];
  }
}
