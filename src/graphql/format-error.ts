import { type GraphQLFormattedError, GraphQLError } from 'graphql';
import { AppError } from '../common/errors';
import { toAppError } from '../http/error-middleware';

/**
 * Apollo's codes for errors of the request itself (it could not be parsed,
 * validated or given its variables), as docs/behaviour.md#errors codes. The graphql-ws
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
  // Errors without an original are GraphQL's own (validation, variable values) or already carry a docs/behaviour.md#errors code.
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
