import type { Context, Next } from 'koa';
import { AppError } from '../common/errors';
import type { Logger } from '../common/logger';

/** Maps every thrown error to the body of RULINGS.md §14; unknown errors become a logged 500. */
export function errorMiddleware(log: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new AppError(404, 'route_not_found', `No route for ${ctx.method} ${ctx.path}.`);
      }
    } catch (err) {
      const appError = toAppError(err);
      if (appError.status >= 500) log.error({ err, requestId: ctx.state.requestId, path: ctx.path }, 'request failed');
      ctx.status = appError.status;
      ctx.body = appError.toBody();
      for (const [name, value] of Object.entries(appError.headers ?? {})) ctx.set(name, value);
    }
  };
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
