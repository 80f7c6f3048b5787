import http from 'node:http';
import https from 'node:https';

/**
 * The CLI's one outbound HTTP client: POSTs a forward to the developer's local server over keep-alive
 * connections, with one time limit over connect + headers + body and a capped body read. Local servers
 * are private addresses by nature, so nothing is refused by address; `--insecure` accepts a self-signed
 * certificate.
 */
const USER_AGENT = 'webhook-relay/1';
/** More than the CLI reports back (REPORTED_BODY_LIMIT_BYTES); a bigger body is cut off and the connection dropped. */
const READ_LIMIT_BYTES = 64 * 1024;

let plainAgent: http.Agent | null = null;
let tlsAgent: https.Agent | null = null;
let insecureAgent: https.Agent | null = null;

function agentFor(url: URL, insecureTls: boolean): http.Agent {
  if (url.protocol === 'http:') return (plainAgent ??= new http.Agent({ keepAlive: true }));
  if (insecureTls) return (insecureAgent ??= new https.Agent({ keepAlive: true, rejectUnauthorized: false }));
  return (tlsAgent ??= new https.Agent({ keepAlive: true }));
}

/** Closes the keep-alive connections (the end of `relay listen`, test teardown). */
export async function closeLocalAgents(): Promise<void> {
  for (const agent of [plainAgent, tlsAgent, insecureAgent]) agent?.destroy();
  plainAgent = tlsAgent = insecureAgent = null;
}

export interface LocalAnswer {
  statusCode: number;
  headers: Record<string, string>;
  /** At most READ_LIMIT_BYTES of the body. */
  body: Buffer;
  latencyMs: number;
}

export type LocalOutcome = LocalAnswer | { error: string; latencyMs: number };

export interface LocalPostOptions {
  timeoutMs: number;
  headers?: Record<string, string>;
  /** `--insecure`: accept any TLS certificate (a developer's self-signed server). */
  insecureTls?: boolean;
}

/** POSTs a JSON body; never throws (the outcome says what happened). */
export async function postJson(target: string, body: string, options: LocalPostOptions): Promise<LocalOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = new URL(target);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported protocol ${url.protocol}`);
  } catch (err) {
    return { error: `invalid request: ${(err as Error).message}`, latencyMs: elapsed() };
  }
  const signal = AbortSignal.timeout(options.timeoutMs);
  try {
    const answer = await new Promise<Omit<LocalAnswer, 'latencyMs'>>((resolve, reject) => {
      const send = url.protocol === 'https:' ? https.request : http.request;
      const req = send(url, {
        method: 'POST',
        agent: agentFor(url, options.insecureTls === true),
        headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...options.headers, 'content-length': Buffer.byteLength(body) },
        signal,
      });
      req.on('error', reject);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => resolve({ statusCode: res.statusCode ?? 0, headers: joinHeaders(res.headers), body: Buffer.concat(chunks) });
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= READ_LIMIT_BYTES) {
            res.destroy();
            done();
          }
        });
        res.on('end', done);
        res.on('error', reject);
        res.on('close', () => {
          if (!res.complete && size < READ_LIMIT_BYTES) reject(signal.aborted ? signal.reason : new Error('the connection closed before the answer was complete'));
        });
      });
      req.end(body);
    });
    return { ...answer, latencyMs: elapsed() };
  } catch (err) {
    return { error: describeError(err, options.timeoutMs, signal), latencyMs: elapsed() };
  }
}

function joinHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function describeError(err: unknown, timeoutMs: number, signal: AbortSignal): string {
  if (signal.aborted) return `timeout: no complete answer within ${timeoutMs} ms`;
  const e = (err ?? {}) as { message?: string; code?: string };
  const message = String(e.message ?? err);
  if (e.code === 'ERR_INVALID_ARG_TYPE' || e.code === 'ERR_INVALID_HTTP_TOKEN' || e.code === 'ERR_INVALID_CHAR') return `invalid request: ${message}`;
  return `connection error: ${e.code && !message.includes(e.code) ? `${e.code} ` : ''}${message}`;
}
