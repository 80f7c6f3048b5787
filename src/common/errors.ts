/**
 * Typed application errors with a stable snake_case `code`. Services throw
 * these; each transport maps them once (REST: src/http/error-middleware.ts,
 * GraphQL: src/graphql/format-error.ts) to the body of docs/api.md#errors:
 * `{ "error": { "code", "message", "details"? } }`.
 */
export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetails,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = new.target.name;
  }

  toBody(): { error: { code: string; message: string; details?: ErrorDetails } } {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

export class ValidationError extends AppError {
  constructor(message: string, details?: ErrorDetails, code = 'invalid_input') {
    super(400, code, message, details);
  }
}

export class UnauthenticatedError extends AppError {
  constructor(message = 'Authentication required: send "Authorization: Bearer <token>".', code = 'unauthenticated') {
    super(401, code, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string, details?: ErrorDetails, code = 'forbidden') {
    super(403, code, message, details);
  }
}

export class NotFoundError extends AppError {
  constructor(resource: string, id?: string) {
    super(404, 'not_found', id ? `${resource} ${id} was not found.` : `${resource} was not found.`, {
      resource,
      ...(id ? { id } : {}),
    });
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details?: ErrorDetails, code = 'conflict') {
    super(409, code, message, details);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limitBytes: number) {
    super(413, 'payload_too_large', `Request body is larger than the ${limitBytes}-byte limit.`, { limit_bytes: limitBytes });
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(received: string | undefined) {
    super(
      415,
      'unsupported_media_type',
      'Send the body as JSON with "Content-Type: application/json" (or any +json type).',
      { content_type: received ?? null },
    );
  }
}

/** The client closed the connection before its request body was complete: nothing was accepted, and no one is left to answer. */
export class ClientAbortedError extends AppError {
  constructor() {
    super(400, 'client_aborted', 'The client closed the connection before sending the whole request body.');
  }
}

export class RateLimitedError extends AppError {
  constructor(message: string, retryAfterSeconds: number, details?: ErrorDetails) {
    super(429, 'rate_limited', message, { retry_after_seconds: retryAfterSeconds, ...details }, {
      'Retry-After': String(retryAfterSeconds),
    });
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(message: string, details?: ErrorDetails) {
    super(503, 'service_unavailable', message, details);
  }
}
