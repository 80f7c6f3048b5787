import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Local HTTP servers that speak the three chat platforms' APIs the way the
 * real ones document them, so sends can be tested end to end without the
 * network. Each validates the payload shape strictly (unknown fields, limits,
 * missing text, bad HTML, wrong auth) and answers with the platform's own
 * error format; each records every request; each can be told to answer the
 * next requests with a canned response (429, 5xx, a delay).
 *
 * - chat_a: Web API `POST {apiBaseUrl}/chat.postMessage` (Bearer token, 200 + `{ok:false,error}` on failure)
 *   and incoming webhooks `POST /services/<team>/<bot>/<secret>` (plain-text `ok` / error code).
 * - chat_b: `POST {apiBaseUrl}/channels/<id>/messages` (`Authorization: Bot <token>`) and webhooks
 *   `POST {apiBaseUrl}/webhooks/<id>/<token>[?wait=true]`; errors `{code, message, errors?}`.
 * - chat_c: `POST {apiBaseUrl}/bot<token>/sendMessage`; answers `{ok, result}` or `{ok:false, error_code, description, parameters?}`.
 */
export type FakePlatformName = 'chat_a' | 'chat_b' | 'chat_c';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  /** Parsed JSON body, or undefined when it was not JSON. */
  body: unknown;
  /** The answer the fake gave. */
  status: number;
  /** True when the platform accepted the message. */
  accepted: boolean;
}

export interface CannedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Wait this long before answering. */
  delayMs?: number;
}

interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
  accepted?: boolean;
}

type Handler = (req: { method: string; path: string; query: URLSearchParams; headers: http.IncomingHttpHeaders; rawBody: string; json: unknown; jsonError: boolean }) => Answer;

export class FakePlatform {
  readonly requests: RecordedRequest[] = [];
  private readonly canned: CannedAnswer[] = [];
  private server!: http.Server;
  private port = 0;

  constructor(
    readonly name: FakePlatformName,
    private readonly handle: Handler,
    private readonly apiPath: string,
  ) {}

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => void this.serve(req, res));
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** What the CHAT_X_API_BASE_URL variable is set to. */
  get apiBaseUrl(): string {
    return `${this.origin}${this.apiPath}`;
  }

  /** Requests the platform accepted (messages that were "posted"). */
  get delivered(): RecordedRequest[] {
    return this.requests.filter((r) => r.accepted);
  }

  /** The next request(s) get this answer instead of the normal handling. */
  answerNext(answer: CannedAnswer, times = 1): void {
    for (let i = 0; i < times; i++) this.canned.push(answer);
  }

  /** The next request gets the platform's own 429 shape. */
  rateLimitNext(retryAfterSeconds: number, opts: { global?: boolean } = {}): void {
    this.answerNext(rateLimitAnswer(this.name, retryAfterSeconds, opts.global ?? false));
  }

  reset(): void {
    this.requests.length = 0;
    this.canned.length = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.origin);
    let json: unknown;
    let jsonError = false;
    const contentType = String(req.headers['content-type'] ?? '');
    if (/^application\/json\b/i.test(contentType)) {
      try {
        json = JSON.parse(rawBody);
      } catch {
        jsonError = true;
      }
    } else {
      jsonError = true;
    }
    const canned = this.canned.shift();
    if (canned?.delayMs) await new Promise((r) => setTimeout(r, canned.delayMs));
    const answer: Answer = canned
      ? { status: canned.status, headers: canned.headers, body: canned.body ?? '', accepted: false }
      : this.handle({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, rawBody, json, jsonError });
    this.requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      rawBody,
      body: json,
      status: answer.status,
      accepted: answer.accepted ?? false,
    });
    if (res.destroyed) return;
    const isText = typeof answer.body === 'string';
    const payload = isText ? (answer.body as string) : JSON.stringify(answer.body);
    res.writeHead(answer.status, {
      'content-type': isText ? 'text/plain; charset=utf-8' : 'application/json',
      ...answer.headers,
    });
    res.end(answer.status === 204 ? undefined : payload);
  }
}

function rateLimitAnswer(platform: FakePlatformName, seconds: number, global: boolean): CannedAnswer {
  const whole = String(Math.ceil(seconds));
  switch (platform) {
    case 'chat_b':
      return {
        status: 429,
        headers: { 'retry-after': whole, 'x-ratelimit-scope': global ? 'global' : 'user', ...(global ? { 'x-ratelimit-global': 'true' } : {}) },
        body: { message: 'You are being rate limited.', retry_after: seconds, global, code: 0 },
      };
    case 'chat_a':
      return { status: 429, headers: { 'retry-after': whole }, body: { ok: false, error: 'ratelimited' } };
    case 'chat_c':
      return {
        status: 429,
        body: { ok: false, error_code: 429, description: `Too Many Requests: retry after ${whole}`, parameters: { retry_after: Math.ceil(seconds) } },
      };
  }
}

// ---------------------------------------------------------------------------------------------
// Shared shape checks

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const unknownKeys = (o: Obj, allowed: readonly string[]) => Object.keys(o).filter((k) => !allowed.includes(k));

// ---------------------------------------------------------------------------------------------
// chat_a

const CHAT_A_MESSAGE_KEYS = ['text', 'blocks', 'attachments', 'mrkdwn', 'unfurl_links', 'unfurl_media', 'username', 'icon_url', 'icon_emoji', 'thread_ts', 'link_names', 'parse', 'reply_broadcast', 'metadata'] as const;
const CHAT_A_BLOCK_TYPES = ['section', 'header', 'divider', 'context', 'image', 'actions', 'rich_text', 'input', 'video', 'file'];

/** A text object: `{ type: plain_text|mrkdwn, text }`, non-empty, within `max`. */
function chatATextObject(v: unknown, max: number, plainOnly = false): string | null {
  if (!isObj(v)) return 'text object must be an object';
  if (v.type !== 'plain_text' && (plainOnly || v.type !== 'mrkdwn')) return `text object type must be ${plainOnly ? 'plain_text' : 'plain_text or mrkdwn'}`;
  if (!isStr(v.text) || v.text.length === 0) return 'text object needs a non-empty text';
  if (v.text.length > max) return `text must be at most ${max} characters`;
  const bad = unknownKeys(v, ['type', 'text', 'emoji', 'verbatim']);
  if (bad.length) return `unknown text object field ${bad[0]}`;
  if (v.type === 'mrkdwn' && 'emoji' in v) return 'emoji is only valid on plain_text';
  return null;
}

function chatABlock(b: unknown): string | null {
  if (!isObj(b) || !isStr(b.type)) return 'block must be an object with a type';
  if (!CHAT_A_BLOCK_TYPES.includes(b.type)) return `unknown block type ${b.type}`;
  if (b.block_id !== undefined && (!isStr(b.block_id) || b.block_id.length > 255)) return 'block_id must be a string of at most 255 characters';
  switch (b.type) {
    case 'header':
      return chatATextObject(b.text, 150, true);
    case 'section': {
      if (b.text === undefined && b.fields === undefined) return 'section needs text or fields';
      if (b.text !== undefined) {
        const e = chatATextObject(b.text, 3000);
        if (e) return e;
      }
      if (b.fields !== undefined) {
        if (!Array.isArray(b.fields) || b.fields.length === 0 || b.fields.length > 10) return 'section fields must be 1 to 10 text objects';
        for (const f of b.fields) {
          const e = chatATextObject(f, 2000);
          if (e) return e;
        }
      }
      return null;
    }
    case 'divider':
      return unknownKeys(b, ['type', 'block_id']).length ? 'divider takes no fields' : null;
    case 'context': {
      if (!Array.isArray(b.elements) || b.elements.length === 0 || b.elements.length > 10) return 'context needs 1 to 10 elements';
      for (const el of b.elements) {
        if (isObj(el) && el.type === 'image') {
          if (!isStr(el.image_url) || !isStr(el.alt_text)) return 'image element needs image_url and alt_text';
          continue;
        }
        const e = chatATextObject(el, 3000);
        if (e) return e;
      }
      return null;
    }
    case 'image':
      return isStr(b.image_url) && isStr(b.alt_text) ? null : 'image block needs image_url and alt_text';
    default:
      return null;
  }
}

function chatAAttachment(a: unknown): string | null {
  if (!isObj(a)) return 'attachment must be an object';
  const bad = unknownKeys(a, ['fallback', 'color', 'pretext', 'author_name', 'author_link', 'author_icon', 'title', 'title_link', 'text', 'fields', 'image_url', 'thumb_url', 'footer', 'footer_icon', 'ts', 'mrkdwn_in', 'blocks']);
  if (bad.length) return `unknown attachment field ${bad[0]}`;
  if (a.color !== undefined && (!isStr(a.color) || !/^(#[0-9a-fA-F]{6}|good|warning|danger)$/.test(a.color))) return 'color must be #rrggbb, good, warning or danger';
  if (a.ts !== undefined && typeof a.ts !== 'number' && !(isStr(a.ts) && /^\d+(\.\d+)?$/.test(a.ts))) return 'ts must be an epoch time';
  for (const key of ['fallback', 'pretext', 'author_name', 'title', 'text', 'footer', 'image_url', 'thumb_url', 'title_link', 'author_link', 'author_icon', 'footer_icon']) {
    if (a[key] !== undefined && !isStr(a[key])) return `${key} must be a string`;
  }
  if (a.fields !== undefined) {
    if (!Array.isArray(a.fields)) return 'fields must be an array';
    for (const f of a.fields) {
      if (!isObj(f) || !isStr(f.title) || !isStr(f.value)) return 'each field needs a string title and value';
      if (f.short !== undefined && typeof f.short !== 'boolean') return 'field short must be a boolean';
      if (unknownKeys(f, ['title', 'value', 'short']).length) return 'unknown attachment field key';
    }
  }
  if (![a.fallback, a.text, a.title, a.pretext].some((s) => isStr(s) && s.length > 0) && !(Array.isArray(a.fields) && a.fields.length)) {
    return 'attachment has no content (fallback, text, title, pretext or fields)';
  }
  return null;
}

/** Validates a chat_a message body; returns the platform error code and a detail. */
function chatAMessage(body: Obj, extraKeys: readonly string[]): { error: string; detail: string } | null {
  const bad = unknownKeys(body, [...CHAT_A_MESSAGE_KEYS, ...extraKeys]);
  if (bad.length) return { error: 'invalid_arguments', detail: `unknown field ${bad[0]}` };
  if (body.text !== undefined && !isStr(body.text)) return { error: 'invalid_arguments', detail: 'text must be a string' };
  const hasText = isStr(body.text) && body.text.trim().length > 0;
  const hasBlocks = Array.isArray(body.blocks) && body.blocks.length > 0;
  const hasAttachments = Array.isArray(body.attachments) && body.attachments.length > 0;
  if (!hasText && !hasBlocks && !hasAttachments) return { error: 'no_text', detail: 'text, blocks or attachments is required' };
  if (isStr(body.text) && body.text.length > 40_000) return { error: 'msg_too_long', detail: 'text is longer than 40000 characters' };
  if (body.blocks !== undefined) {
    if (!Array.isArray(body.blocks) || body.blocks.length > 50) return { error: 'invalid_blocks', detail: 'blocks must be an array of at most 50' };
    for (const [i, b] of body.blocks.entries()) {
      const e = chatABlock(b);
      if (e) return { error: 'invalid_blocks', detail: `blocks[${i}]: ${e}` };
    }
  }
  if (body.attachments !== undefined) {
    if (!Array.isArray(body.attachments) || body.attachments.length > 100) return { error: 'invalid_attachments', detail: 'attachments must be an array of at most 100' };
    for (const [i, a] of body.attachments.entries()) {
      const e = chatAAttachment(a);
      if (e) return { error: 'invalid_attachments', detail: `attachments[${i}]: ${e}` };
    }
  }
  return null;
}

export interface ChatAOptions {
  botToken: string;
  channels: string[];
  /** Path of the one valid incoming webhook. */
  webhookPath: string;
}

function chatAHandler(opts: ChatAOptions): Handler {
  let seq = 0;
  return (req) => {
    if (req.method !== 'POST') return { status: 405, body: 'method_not_allowed' };
    if (req.path === '/api/chat.postMessage') {
      const auth = String(req.headers.authorization ?? '');
      if (!auth) return { status: 200, body: { ok: false, error: 'not_authed' } };
      if (auth !== `Bearer ${opts.botToken}`) return { status: 200, body: { ok: false, error: 'invalid_auth' } };
      if (req.jsonError || !isObj(req.json)) return { status: 200, body: { ok: false, error: 'invalid_json' } };
      const body = req.json;
      if (!isStr(body.channel) || !body.channel) return { status: 200, body: { ok: false, error: 'channel_not_found' } };
      if (!opts.channels.includes(body.channel)) return { status: 200, body: { ok: false, error: 'channel_not_found' } };
      const problem = chatAMessage(body, ['channel', 'as_user']);
      if (problem) return { status: 200, body: { ok: false, error: problem.error, response_metadata: { messages: [`[ERROR] ${problem.detail}`] } } };
      const ts = `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, '0')}`;
      return { status: 200, accepted: true, body: { ok: true, channel: body.channel, ts, message: { type: 'message', bot_id: 'B0FAKE', text: body.text ?? '', ts } } };
    }
    if (req.path.startsWith('/services/')) {
      if (req.path !== opts.webhookPath) return { status: 404, body: 'no_service' };
      if (req.jsonError || !isObj(req.json)) return { status: 400, body: 'invalid_payload' };
      const problem = chatAMessage(req.json, []);
      if (problem) return { status: 400, body: problem.error === 'invalid_arguments' ? 'invalid_payload' : problem.error };
      return { status: 200, accepted: true, body: 'ok' };
    }
    return { status: 404, body: { ok: false, error: 'unknown_method' } };
  };
}

// ---------------------------------------------------------------------------------------------
// chat_b

const CHAT_B_MESSAGE_KEYS = ['content', 'embeds', 'tts', 'allowed_mentions', 'components', 'flags', 'nonce', 'message_reference', 'sticker_ids', 'attachments'];
const CHAT_B_WEBHOOK_KEYS = ['username', 'avatar_url', 'thread_name'];
const EMBED_KEYS = ['title', 'type', 'description', 'url', 'timestamp', 'color', 'footer', 'image', 'thumbnail', 'video', 'provider', 'author', 'fields'];
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** `errors` of chat_b's 50035 "Invalid Form Body": the first problem found, keyed by path. */
function chatBMessage(body: Obj, allowed: readonly string[]): { code: number; message: string; errors?: Obj } | null {
  const invalid = (path: string, message: string) => ({ code: 50035, message: 'Invalid Form Body', errors: { [path]: { _errors: [{ code: 'BASE_TYPE_INVALID', message }] } } });
  const bad = unknownKeys(body, allowed);
  if (bad.length) return invalid(bad[0], 'Unknown field.');
  if (body.content !== undefined && body.content !== null) {
    if (!isStr(body.content)) return invalid('content', 'Could not interpret value as string.');
    if (body.content.length > 2000) return invalid('content', 'Must be 2000 or fewer in length.');
  }
  let total = 0;
  const text = (path: string, v: unknown, max: number, required = false): Obj | null => {
    if (v === undefined && !required) return null;
    if (!isStr(v) || (required && v.trim().length === 0)) return invalid(path, required ? 'This field is required' : 'Could not interpret value as string.');
    if (v.length > max) return invalid(path, `Must be ${max} or fewer in length.`);
    total += v.length;
    return null;
  };
  if (body.embeds !== undefined) {
    if (!Array.isArray(body.embeds)) return invalid('embeds', 'Must be an array.');
    if (body.embeds.length > 10) return invalid('embeds', 'Must be 10 or fewer in length.');
    for (const [i, e] of body.embeds.entries()) {
      const at = `embeds.${i}`;
      if (!isObj(e)) return invalid(at, 'Must be an object.');
      const extra = unknownKeys(e, EMBED_KEYS);
      if (extra.length) return invalid(`${at}.${extra[0]}`, 'Unknown field.');
      const err =
        text(`${at}.title`, e.title, 256) ??
        text(`${at}.description`, e.description, 4096) ??
        (e.url !== undefined && (!isStr(e.url) || !/^https?:\/\//.test(e.url)) ? invalid(`${at}.url`, 'Not a well formed URL.') : null) ??
        (e.timestamp !== undefined && (!isStr(e.timestamp) || !ISO_8601.test(e.timestamp)) ? invalid(`${at}.timestamp`, 'Could not parse timestamp.') : null) ??
        (e.color !== undefined && (!Number.isInteger(e.color) || (e.color as number) < 0 || (e.color as number) > 0xffffff)
          ? invalid(`${at}.color`, 'Int value should be between 0 and 16777215.')
          : null);
      if (err) return err as ReturnType<typeof invalid>;
      if (e.footer !== undefined) {
        if (!isObj(e.footer)) return invalid(`${at}.footer`, 'Must be an object.');
        const f = text(`${at}.footer.text`, e.footer.text, 2048, true);
        if (f) return f as ReturnType<typeof invalid>;
      }
      if (e.author !== undefined) {
        if (!isObj(e.author)) return invalid(`${at}.author`, 'Must be an object.');
        const a = text(`${at}.author.name`, e.author.name, 256, true);
        if (a) return a as ReturnType<typeof invalid>;
      }
      for (const key of ['thumbnail', 'image']) {
        const media = e[key];
        if (media !== undefined && (!isObj(media) || !isStr(media.url) || !/^(https?|attachment):\/\//.test(media.url))) {
          return invalid(`${at}.${key}.url`, 'Scheme must be one of (http, https, attachment).');
        }
      }
      if (e.fields !== undefined) {
        if (!Array.isArray(e.fields)) return invalid(`${at}.fields`, 'Must be an array.');
        if (e.fields.length > 25) return invalid(`${at}.fields`, 'Must be 25 or fewer in length.');
        for (const [j, f] of e.fields.entries()) {
          if (!isObj(f)) return invalid(`${at}.fields.${j}`, 'Must be an object.');
          if (unknownKeys(f, ['name', 'value', 'inline']).length) return invalid(`${at}.fields.${j}`, 'Unknown field.');
          const fe = text(`${at}.fields.${j}.name`, f.name, 256, true) ?? text(`${at}.fields.${j}.value`, f.value, 1024, true);
          if (fe) return fe as ReturnType<typeof invalid>;
          if (f.inline !== undefined && typeof f.inline !== 'boolean') return invalid(`${at}.fields.${j}.inline`, 'Must be a boolean.');
        }
      }
    }
    if (total > 6000) return invalid('embeds', 'Embed size exceeds maximum size of 6000');
  }
  const hasContent = isStr(body.content) && body.content.trim().length > 0;
  const hasEmbeds = Array.isArray(body.embeds) && body.embeds.length > 0;
  if (!hasContent && !hasEmbeds && !body.components && !body.sticker_ids) return { code: 50006, message: 'Cannot send an empty message' };
  return null;
}

export interface ChatBOptions {
  /** Every bot token the fake accepts (two bots, for tests of what one token's limit does to another). */
  botTokens: string[];
  channels: string[];
  webhookId: string;
  webhookToken: string;
}

function chatBHandler(opts: ChatBOptions): Handler {
  let seq = 1_000_000_000;
  const message = (channelId: string, body: Obj, webhookId?: string) => ({
    id: String(++seq),
    type: 0,
    channel_id: channelId,
    content: body.content ?? '',
    embeds: body.embeds ?? [],
    timestamp: new Date().toISOString(),
    author: { id: webhookId ?? '900000000000000001', username: webhookId ? (body.username ?? 'Relay') : 'relay-bot', bot: true },
    ...(webhookId ? { webhook_id: webhookId } : {}),
  });
  return (req) => {
    if (req.method !== 'POST') return { status: 405, body: { message: '405: Method Not Allowed', code: 0 } };
    const channelMatch = /^\/api\/v10\/channels\/([^/]+)\/messages$/.exec(req.path);
    if (channelMatch) {
      if (!opts.botTokens.some((token) => req.headers.authorization === `Bot ${token}`)) return { status: 401, body: { message: '401: Unauthorized', code: 0 } };
      if (!opts.channels.includes(channelMatch[1])) return { status: 404, body: { message: 'Unknown Channel', code: 10003 } };
      if (req.jsonError || !isObj(req.json)) return { status: 400, body: { message: 'The request body contains invalid JSON.', code: 50109 } };
      const problem = chatBMessage(req.json, CHAT_B_MESSAGE_KEYS);
      if (problem) return { status: 400, body: problem };
      return { status: 200, accepted: true, body: message(channelMatch[1], req.json) };
    }
    const hookMatch = /^\/api\/v10\/webhooks\/([^/]+)\/([^/]+)$/.exec(req.path);
    if (hookMatch) {
      if (hookMatch[1] !== opts.webhookId || hookMatch[2] !== opts.webhookToken) return { status: 404, body: { message: 'Unknown Webhook', code: 10015 } };
      if (req.jsonError || !isObj(req.json)) return { status: 400, body: { message: 'The request body contains invalid JSON.', code: 50109 } };
      const problem = chatBMessage(req.json, [...CHAT_B_MESSAGE_KEYS, ...CHAT_B_WEBHOOK_KEYS]);
      if (problem) return { status: 400, body: problem };
      if (req.query.get('wait') !== 'true') return { status: 204, accepted: true, body: '' };
      return { status: 200, accepted: true, body: message('800000000000000001', req.json, opts.webhookId) };
    }
    return { status: 404, body: { message: '404: Not Found', code: 0 } };
  };
}

// ---------------------------------------------------------------------------------------------
// chat_c

const CHAT_C_SEND_KEYS = ['chat_id', 'text', 'parse_mode', 'entities', 'link_preview_options', 'disable_web_page_preview', 'disable_notification', 'protect_content', 'reply_to_message_id', 'reply_parameters', 'reply_markup', 'message_thread_id', 'allow_sending_without_reply', 'business_connection_id', 'message_effect_id'];
const CHAT_C_TAGS = ['b', 'strong', 'i', 'em', 'u', 'ins', 's', 'strike', 'del', 'span', 'tg-spoiler', 'a', 'tg-emoji', 'code', 'pre', 'blockquote'];

/**
 * chat_c's HTML parse mode: only its tags, properly nested and closed; `<`,
 * `>` and `&` in text must be escaped (only `&lt; &gt; &amp; &quot;` and
 * numeric entities). Returns the error description, or the visible text length.
 */
export function parseChatCHtml(html: string): { error: string } | { length: number } {
  const stack: string[] = [];
  let visible = 0;
  let i = 0;
  const byteOffset = (at: number) => Buffer.byteLength(html.slice(0, at));
  while (i < html.length) {
    const ch = html[i];
    if (ch === '<') {
      const m = /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+(?:="[^"]*"|='[^']*')?)*)\s*>/.exec(html.slice(i));
      if (!m) return { error: `Bad Request: can't parse entities: Unexpected end tag at byte offset ${byteOffset(i)}` };
      const [whole, closing, rawName, attrs] = m;
      const name = rawName.toLowerCase();
      if (!CHAT_C_TAGS.includes(name)) {
        return { error: `Bad Request: can't parse entities: Unsupported ${closing ? 'end' : 'start'} tag "${name}" at byte offset ${byteOffset(i)}` };
      }
      if (closing) {
        if (stack.pop() !== name) return { error: `Bad Request: can't parse entities: Unmatched end tag at byte offset ${byteOffset(i)}, expected "</${stack.at(-1) ?? ''}>", found "</${name}>"` };
      } else {
        if (name === 'a' && !/\bhref=/.test(attrs)) return { error: `Bad Request: can't parse entities: Can't find href attribute of tag "a" at byte offset ${byteOffset(i)}` };
        if (name === 'span' && !/class="tg-spoiler"/.test(attrs)) return { error: `Bad Request: can't parse entities: Tag "span" must have class "tg-spoiler" at byte offset ${byteOffset(i)}` };
        stack.push(name);
      }
      i += whole.length;
      continue;
    }
    if (ch === '&') {
      const m = /^&(lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+);/.exec(html.slice(i));
      if (!m) return { error: `Bad Request: can't parse entities: Character entity expected at byte offset ${byteOffset(i)}` };
      visible += 1;
      i += m[0].length;
      continue;
    }
    if (ch === '>') return { error: `Bad Request: can't parse entities: Unexpected end of name token at byte offset ${byteOffset(i)}` };
    visible += 1;
    i += 1;
  }
  if (stack.length) return { error: `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "${stack.at(-1)}"` };
  return { length: visible };
}

export interface ChatCOptions {
  botToken: string;
  chats: string[];
}

function chatCHandler(opts: ChatCOptions): Handler {
  let seq = 0;
  const fail = (status: number, description: string): Answer => ({ status, body: { ok: false, error_code: status, description } });
  return (req) => {
    const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(req.path);
    if (!m || m[1] !== opts.botToken) return fail(m ? 401 : 404, m ? 'Unauthorized' : 'Not Found');
    if (m[2] !== 'sendMessage') return fail(404, 'Not Found');
    if (req.jsonError || !isObj(req.json)) return fail(400, 'Bad Request: invalid JSON body');
    const body = req.json;
    const bad = unknownKeys(body, CHAT_C_SEND_KEYS);
    if (bad.length) return fail(400, `Bad Request: unknown parameter "${bad[0]}"`);
    if (body.chat_id === undefined || body.chat_id === '') return fail(400, 'Bad Request: chat_id is empty');
    if (!opts.chats.includes(String(body.chat_id))) return fail(400, 'Bad Request: chat not found');
    if (!isStr(body.text) || body.text.trim() === '') return fail(400, 'Bad Request: message text is empty');
    let length = body.text.length;
    if (body.parse_mode !== undefined) {
      if (!['HTML', 'MarkdownV2', 'Markdown'].includes(body.parse_mode as string)) return fail(400, 'Bad Request: unsupported parse_mode');
      if (body.parse_mode === 'HTML') {
        const parsed = parseChatCHtml(body.text);
        if ('error' in parsed) return fail(400, parsed.error);
        length = parsed.length;
        if (length === 0) return fail(400, 'Bad Request: message text is empty');
      }
    }
    if (length > 4096) return fail(400, 'Bad Request: message is too long');
    const chatId = String(body.chat_id);
    return {
      status: 200,
      accepted: true,
      body: {
        ok: true,
        result: { message_id: ++seq, date: Math.floor(Date.now() / 1000), chat: { id: /^-?\d+$/.test(chatId) ? Number(chatId) : -100123, type: chatId.startsWith('-') || chatId.startsWith('@') ? 'channel' : 'private' }, text: body.text },
      },
    };
  };
}

// ---------------------------------------------------------------------------------------------

export interface FakePlatforms {
  chatA: FakePlatform & { webhookUrl: string; botToken: string; channel: string };
  chatB: FakePlatform & { webhookUrl: string; botToken: string; otherBotToken: string; channel: string };
  chatC: FakePlatform & { botToken: string; chat: string };
  /** The CHAT_*_API_BASE_URL variables pointing at the fakes. */
  env: Record<'CHAT_A_API_BASE_URL' | 'CHAT_B_API_BASE_URL' | 'CHAT_C_API_BASE_URL', string>;
  reset(): void;
  close(): Promise<void>;
}

/** Starts the three fake platforms on free local ports, each with one valid bot token, channel and webhook. */
export async function startFakePlatforms(): Promise<FakePlatforms> {
  const a: ChatAOptions = { botToken: 'xoxb-fake-0001', channels: ['C0FAKE0001'], webhookPath: '/services/T0FAKE/B0FAKE/fakewebhooksecret' };
  const b: ChatBOptions = { botTokens: ['fake-bot-token.0001', 'fake-bot-token.0002'], channels: ['700000000000000001'], webhookId: '600000000000000001', webhookToken: 'fake-webhook-token' };
  const c: ChatCOptions = { botToken: '123456:FAKE-token_0001', chats: ['-1001234567890', '@relay_test_channel'] };
  const chatA = new FakePlatform('chat_a', chatAHandler(a), '/api');
  const chatB = new FakePlatform('chat_b', chatBHandler(b), '/api/v10');
  const chatC = new FakePlatform('chat_c', chatCHandler(c), '');
  await Promise.all([chatA.start(), chatB.start(), chatC.start()]);
  const all = [chatA, chatB, chatC];
  return {
    chatA: Object.assign(chatA, { webhookUrl: `${chatA.origin}${a.webhookPath}`, botToken: a.botToken, channel: a.channels[0] }),
    chatB: Object.assign(chatB, {
      webhookUrl: `${chatB.apiBaseUrl}/webhooks/${b.webhookId}/${b.webhookToken}`,
      botToken: b.botTokens[0],
      otherBotToken: b.botTokens[1],
      channel: b.channels[0],
    }),
    chatC: Object.assign(chatC, { botToken: c.botToken, chat: c.chats[0] }),
    env: { CHAT_A_API_BASE_URL: chatA.apiBaseUrl, CHAT_B_API_BASE_URL: chatB.apiBaseUrl, CHAT_C_API_BASE_URL: chatC.apiBaseUrl },
    reset: () => all.forEach((p) => p.reset()),
    close: async () => {
      await Promise.all(all.map((p) => p.close()));
    },
  };
}
