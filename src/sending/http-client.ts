import { STATUS_CODES } from 'node:http';
import net from 'node:net';
import { Agent, buildConnector, request } from 'undici';
import { BlockedAddressError, guardedLookup, isBlockedAddress, SSRF_ERROR_CODE } from './address-guard';
import { type FailureKind, type SendResult, truncateUtf8 } from './send-result';

/**
 * The one outbound HTTP client of every send: keep-alive connection pools
 * shared by all deliveries of the process (one agent with the SSRF guard, one
 * without), redirects never followed (undici's `request` does not follow
 * them), one time limit over connect + headers + body, and a capped body read.
 */
const USER_AGENT = 'webhook-relay/1';
/** Enough for any platform's JSON answer; a bigger body is cut off (and the connection dropped). */
const READ_LIMIT_BYTES = 64 * 1024;

const agentOptions = { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: 128 };

function guardedConnector(): buildConnector.connector {
  const connect = buildConnector({ lookup: guardedLookup });
  return (options, callback) => {
    // IP literals skip `lookup`, so they are checked here.
    const host = options.hostname.replace(/^\[(.*)\]$/, '$1');
    if (net.isIP(host) && isBlockedAddress(host)) return callback(new BlockedAddressError(host, host), null);
    return connect(options, callback);
  };
}

let guardedAgent: Agent | null = null;
let openAgent: Agent | null = null;
let insecureAgent: Agent | null = null;

function agentFor(allowPrivateNetworks: boolean, insecureTls = false): Agent {
  // `relay listen --insecure` only: a developer's self-signed HTTPS server.
  if (insecureTls) return (insecureAgent ??= new Agent({ ...agentOptions, connect: { rejectUnauthorized: false } }));
  if (allowPrivateNetworks) return (openAgent ??= new Agent(agentOptions));
  return (guardedAgent ??= new Agent({ ...agentOptions, connect: guardedConnector() }));
}

/** Closes the shared pools (process shutdown, test teardown). */
export async function closeHttpAgents(): Promise<void> {
  const agents = [guardedAgent, openAgent, insecureAgent].filter((a): a is Agent => a !== null);
  guardedAgent = openAgent = insecureAgent = null;
  await Promise.all(agents.map((a) => a.close()));
}

export interface HttpAnswer {
  statusCode: number;
  headers: Record<string, string>;
  /** At most READ_LIMIT_BYTES of the body. */
  body: Buffer;
  latencyMs: number;
}

/** No answer: why (`failure` is unset for an SSRF refusal or an invalid request: retrying cannot help those). */
export interface HttpFailure {
  error: string;
  blocked: boolean;
  failure?: FailureKind;
  latencyMs: number;
}

export type HttpOutcome = HttpAnswer | HttpFailure;

export interface PostOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  headers?: Record<string, string>;
  /** Accept any TLS certificate (the CLI's --insecure, for self-signed local servers); never for deliveries. */
  insecureTls?: boolean;
}

/** POSTs a JSON body; never throws for network trouble (the outcome says what happened). */
export async function postJson(url: string, body: string, options: PostOptions): Promise<HttpOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    const res = await request(url, {
      method: 'POST',
      dispatcher: agentFor(options.allowPrivateNetworks, options.insecureTls),
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...options.headers },
      body,
      signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= READ_LIMIT_BYTES) {
        res.body.destroy();
        break;
      }
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return { statusCode: res.statusCode, headers, body: Buffer.concat(chunks), latencyMs: elapsed() };
  } catch (err) {
    return { ...describeError(err, options.timeoutMs, signal), latencyMs: elapsed() };
  }
}

function describeError(err: unknown, timeoutMs: number, signal: AbortSignal): Omit<HttpFailure, 'latencyMs'> {
  for (let e = err as (Error & { code?: string; cause?: unknown }) | undefined; e; e = e.cause as typeof e) {
    if (e.code === SSRF_ERROR_CODE) return { error: e.message, blocked: true };
  }
  if (signal.aborted) return { error: `timeout: no complete answer within ${timeoutMs} ms`, blocked: false, failure: 'timeout' };
  const e = (err ?? {}) as { message?: string; code?: string; cause?: { message?: string; code?: string } };
  const inner = e.cause ?? e;
  const code = inner.code ?? e.code;
  const message = String(inner.message ?? e.message ?? err);
  if (code === 'UND_ERR_INVALID_ARG') return { error: `invalid request: ${message}`, blocked: false };
  const failure = code === 'ECONNREFUSED' ? 'connection_refused' : 'connection_error';
  return { error: `connection error: ${code && !message.includes(code) ? `${code} ` : ''}${message}`, blocked: false, failure };
}

/** The common part of a SendResult: status, stored body, headers, latency, and a summary of a non-2xx answer. */
export function answerToResult(answer: HttpAnswer, payloadSent: unknown): SendResult {
  const { text, truncated } = truncateUtf8(answer.body);
  const ok = answer.statusCode >= 200 && answer.statusCode < 300;
  return {
    ok,
    statusCode: answer.statusCode,
    responseBody: text,
    responseBodyTruncated: truncated,
    responseHeaders: answer.headers,
    latencyMs: answer.latencyMs,
    error: ok ? null : statusSummary(answer),
    payloadSent,
  };
}

function statusSummary(answer: HttpAnswer): string {
  const status = `HTTP ${answer.statusCode}${STATUS_CODES[answer.statusCode] ? ` ${STATUS_CODES[answer.statusCode]}` : ''}`;
  if (answer.statusCode >= 300 && answer.statusCode < 400) {
    return `${status}: redirect not followed${answer.headers.location ? ` (Location: ${answer.headers.location})` : ''}`;
  }
  return status;
}

/** A SendResult for a request that got no answer. */
export function failureToResult(outcome: HttpFailure, payloadSent: unknown): SendResult {
  return {
    ok: false,
    statusCode: null,
    responseBody: null,
    responseBodyTruncated: false,
    responseHeaders: null,
    latencyMs: outcome.latencyMs,
    error: outcome.error,
    payloadSent,
    ...(outcome.blocked ? { permanent: true } : { unreachable: true }),
    ...(outcome.failure ? { failure: outcome.failure } : {}),
  };
}
