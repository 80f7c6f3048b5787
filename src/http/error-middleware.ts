import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context, Next } from 'koa';
import { AppError } from '../common/errors';
import type { Logger } from '../common/logger';

/** Maps every thrown error to the body of docs/api.md#errors; unknown errors become a 500 logged with its stack, client errors an `info` line. */
export function errorMiddleware(log: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
      // Answers left without a body (no route, or the router's 405/501) get the error body too.
      if (ctx.status >= 400 && ctx.body == null) throw emptyAnswerError(ctx);
    } catch (err) {
      const appError = toAppError(err);
      const body = appError.toBody();
      if (appError.status >= 500) {
        log.error({ err, requestId: ctx.state.requestId, path: ctx.path }, 'request failed');
        // The id the log line carries (also the X-Request-Id header), so that a report can be matched to it.
        body.error.details = { ...body.error.details, request_id: ctx.state.requestId };
      } else if (!ctx.path.startsWith('/hooks/')) {
        // A client's mistake, not a fault here: no stack. Ingress refusals (senders' traffic, any volume) are counted, not logged.
        log.info({ requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, status: appError.status, code: appError.code }, 'request refused');
      }
      ctx.status = appError.status;
      ctx.body = body;
      for (const [name, value] of Object.entries(appError.headers ?? {})) ctx.set(name, value);
    }
  };
}

function emptyAnswerError(ctx: Context): AppError {
  const allow = ctx.response.get('Allow');
  // The router answers methods it has no route for at all (TRACE, …) with 501; to a client that is a wrong method, not a server fault.
  if (ctx.status === 405 || ctx.status === 501) {
    return new AppError(405, 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}${allow ? `; allowed: ${allow}` : ''}.`, { allow }, allow ? { Allow: allow } : undefined);
  }
  if (ctx.status === 404) return new AppError(404, 'route_not_found', `No route for ${ctx.method} ${ctx.path}.`);
  return new AppError(ctx.status, 'request_error', ctx.message);
}

/** How long a socket answered here may take to read its answer before it is destroyed. */
const CLIENT_ERROR_LINGER_MS = 500;

/**
 * Errors Node's HTTP parser raises before Koa sees a request (oversized
 * headers, malformed request lines) and requests past the headers or request
 * timeout: answered with the error body on the raw socket, instead of Node's
 * bodiless default, then the socket is destroyed. Only half-closing it would
 * leave it to the client, and a slow-header client (slowloris) that never
 * closes its side would hold it in FIN-WAIT-2 for ever.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // A response of this connection is under way (e.g. a 413 whose refused body never ends): another answer would corrupt it.
  // Node tracks the in-flight response only as `_httpMessage` (its own default handler reads it the same way); once a
  // response has finished it is detached, so an error on a reused keep-alive connection between requests is answered.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const error =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError(431, 'request_headers_too_large', 'The request headers are too large; send fewer or shorter headers.')
      : err.code === 'HPE_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new AppError(408, 'request_timeout', 'The request was not received in time.')
        : new AppError(400, 'malformed_request', 'The request is not valid HTTP/1.1.');
  const body = JSON.stringify(error.toBody());
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // A short linger lets the answer reach the client before a reset could discard it.
  const linger = setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS).unref();
  socket.once('close', () => clearTimeout(linger));
}

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { status?: number; statusCode?: number; expose?: boolean; message?: string; type?: string };
  const status = e?.status ?? e?.statusCode;
  // Errors raised by Koa middleware (body parsers, http-errors) carry a 4xx status and a safe message.
  if (status && status >= 400 && status < 500 && e.expose !== false) {
    if (status === 413) return new AppError(413, 'payload_too_large', 'Request body is too large.');
    if (status === 415) return new AppError(415, 'unsupported_media_type', e.message ?? 'Unsupported media type.');
    return new AppError(status, status === 400 ? 'invalid_input' : 'request_error', e.message ?? 'Bad request.');
  }
  return new AppError(500, 'internal_error', 'Something went wrong on our side; the error was logged. Retry, and report it if it persists.');
}
