import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { ClientAbortedError, PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../common/errors';

/** docs/ingress.md: `application/json` or any `+json` type, any parameters (charset). */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';', 1)[0].trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

export function assertJsonContentType(contentType: string | undefined): void {
  if (!isJsonContentType(contentType)) throw new UnsupportedMediaTypeError(contentType);
}

/**
 * The body exactly as sent (signatures are checked against these bytes),
 * refused with 413 as soon as it passes `limit`: up front from
 * Content-Length, else while streaming (chunked).
 *
 * A refused body is discarded, never left half-read or destroyed: the rest
 * still arrives on the connection, and Node can only parse the next request
 * of a keep-alive connection after it (a destroyed request stream left the
 * connection answering nothing). A body that never ends is cut by the request
 * timeout (src/http/server.ts), which closes the socket.
 */
export function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(new PayloadTooLargeError(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (err?: Error) => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else {
        settle(new PayloadTooLargeError(limit));
        req.resume();
      }
    };
    const onEnd = () => settle();
    // A sender that hangs up mid-body is the client's doing, not a server error.
    const onClose = () => settle(new ClientAbortedError());
    const onError = (err: NodeJS.ErrnoException) => settle(err.code === 'ECONNRESET' || req.destroyed ? new ClientAbortedError() : err);
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
    if (req.readableEnded) settle();
  });
}

/**
 * How deeply arrays and objects may nest in a JSON body (docs/internals/ingress.md "What ingress refuses, and why").
 * Far beyond any real webhook (providers' payloads nest about 10 deep), far below what the parts
 * that walk a payload by recursion survive: V8's JSON.stringify (about 4,000 levels), PostgreSQL's
 * jsonb conversion for search (about 17,000 with the default max_stack_depth).
 */
export const MAX_JSON_DEPTH = 256;

/**
 * Whether arrays and objects nest deeper than `limit` in `bytes`, which JSON.parse has accepted
 * (so every string is closed). One linear pass and a counter, no recursion: any depth is
 * measured safely. Bytes inside strings are skipped (a `[` there is text), and so is the
 * character after a backslash (an escaped quote does not end the string).
 */
export function nestsDeeperThan(bytes: Uint8Array, limit: number): boolean {
  const n = bytes.length;
  // limit + 1 levels take at least 2 * (limit + 1) bytes.
  if (n < 2 * (limit + 1)) return false;
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const c = bytes[i];
    if (c === 0x22) {
      for (i++; i < n; i++) {
        const s = bytes[i];
        if (s === 0x5c) i++;
        else if (s === 0x22) break;
      }
    } else if ((c | 0x20) === 0x7b) {
      // `[` (0x5b) or `{` (0x7b)
      if (++depth > limit) return true;
    } else if ((c | 0x20) === 0x7d) {
      // `]` (0x5d) or `}` (0x7d)
      depth--;
    }
  }
  return false;
}

/**
 * The parsed body and its text (stored as-is in the `json` payload column).
 * Bytes that are not UTF-8 are refused rather than decoded with replacement
 * characters, which would store a text that no longer matches the signed bytes;
 * so is nesting deeper than MAX_JSON_DEPTH.
 */
export function parseJsonBody(raw: Buffer): { text: string; value: unknown } {
  // isUtf8 is a native (SIMD) scan: cheap on the ingress hot path.
  if (!isUtf8(raw)) throw new ValidationError('Request body is not valid UTF-8; send JSON encoded as UTF-8.', undefined, 'invalid_utf8');
  const text = raw.toString('utf8');
  let value: unknown;
  try {
    // V8's JSON.parse does not recurse: a body nested far past the limit parses, and is refused below.
    value = JSON.parse(text);
  } catch (err) {
    throw new ValidationError('Request body is not valid JSON.', { reason: (err as Error).message }, 'malformed_json');
  }
  if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) {
    throw new ValidationError(
      `Request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; the limit is ${MAX_JSON_DEPTH}.`,
      { limit: MAX_JSON_DEPTH },
      'json_too_deep',
    );
  }
  return { text, value };
}

/** Reads and parses a JSON request body for the management API; an empty body is `undefined`. */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const raw = await readRawBody(req, limit);
  if (raw.length === 0) return undefined;
  assertJsonContentType(req.headers['content-type']);
  return parseJsonBody(raw).value;
}
