import type { ApolloServerPlugin } from '@apollo/server';
import { type GraphQLFormattedError, GraphQLError } from 'graphql';
import { AppError } from '../common/errors';
import type { Logger } from '../common/logger';
import { toAppError } from '../http/error-middleware';
import type { GraphQLContext } from './context';

/**
 * Apollo's codes for errors of the request itself (it could not be parsed,
 * validated or given its variables), as docs/api.md#errors codes. The graphql-ws
 * hooks (src/graphql/ws-operations.ts) tag their errors with the same codes.
 */
const REQUEST_ERROR_CODES: Record<string, string> = {
  GRAPHQL_PARSE_FAILED: 'graphql_parse_failed',
  GRAPHQL_VALIDATION_FAILED: 'graphql_validation_failed',
  BAD_USER_INPUT: 'graphql_validation_failed',
  OPERATION_RESOLUTION_FAILURE: 'graphql_validation_failed',
  BAD_REQUEST: 'bad_request',
  PERSISTED_QUERY_NOT_FOUND: 'bad_request',
  PERSISTED_QUERY_NOT_SUPPORTED: 'bad_request',
};

/** GraphQL's mapping of AppError: the same `code`, `message` and `details` as REST, in `extensions`. */
export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const requestCode = REQUEST_ERROR_CODES[String(formatted.extensions?.code)];
  if (requestCode) return { message: formatted.message, locations: formatted.locations, extensions: { code: requestCode, status: 400 } };
  const original = error instanceof GraphQLError ? error.originalError : error;
  // Errors without an original are GraphQL's own (validation, variable values) or already carry a docs/api.md#errors code.
  if (!original || (error instanceof GraphQLError && !error.originalError)) {
    const code = formatted.extensions?.code;
    if (typeof code === 'string' && /^[a-z_]+$/.test(code)) return formatted;
    return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { code: 'graphql_validation_failed', status: 400 } };
  }
  const appError = original instanceof AppError ? original : toAppError(original);
  return {
    message: appError.message,
    locations: formatted.locations,
    path: formatted.path,
    extensions: { code: appError.code, status: appError.status, ...(appError.details ? { details: appError.details } : {}) },
  };
}

/**
 * Logs each error of one operation by what it answers: a server fault (5xx: a bug, a lost database) at `error` with
 * its stack; a client's mistake (4xx: a syntax or validation error, a missing resource) at `info`, without a stack
 * and without its message (it may quote the variables sent). Both carry the operation's request id.
 */
export function logOperationErrors(log: Logger, requestId: string, errors: readonly GraphQLError[]): void {
  for (const error of errors) {
    const { extensions } = formatGraphQLError(error.toJSON(), error);
    const path = error.path?.join('.');
    if (typeof extensions?.status === 'number' && extensions.status < 500) {
      log.info({ requestId, path, code: extensions.code, status: extensions.status }, 'GraphQL request refused');
    } else {
      log.error({ err: error.originalError ?? error, requestId, path }, 'GraphQL operation failed');
    }
  }
}

/** The formatted errors, each 5xx one carrying the request id it was logged with (`extensions.details.request_id`). */
export function withRequestId(errors: readonly GraphQLFormattedError[], requestId: string): GraphQLFormattedError[] {
  return errors.map((e) =>
    typeof e.extensions?.status === 'number' && e.extensions.status >= 500
      ? { ...e, extensions: { ...e.extensions, details: { ...(e.extensions.details as object | undefined), request_id: requestId } } }
      : e,
  );
}

/** The same for an operation over graphql-ws, whose results are formatted by the hooks rather than by Apollo. */
export function formatOperationErrors(log: Logger, requestId: string, errors: readonly GraphQLError[]): GraphQLFormattedError[] {
  logOperationErrors(log, requestId, errors);
  return withRequestId(
    errors.map((e) => formatGraphQLError(e.toJSON(), e)),
    requestId,
  );
}

/** Apollo (HTTP): errors are logged with the request id (the `X-Request-Id` of the answer), which server faults' errors carry. */
export function serverFaultPlugin(log: Logger): ApolloServerPlugin<GraphQLContext> {
  return {
    requestDidStart: async () => ({
      didEncounterErrors: async ({ errors, contextValue }) => logOperationErrors(log, contextValue.ctx.requestId, errors),
      willSendResponse: async ({ response, contextValue }) => {
        const result = response.body.kind === 'single' ? response.body.singleResult : undefined;
        if (result?.errors) result.errors = withRequestId(result.errors, contextValue.ctx.requestId);
      },
    }),
  };
}
