import { type GraphQLFormattedError, GraphQLError } from 'graphql';
import { AppError } from '../common/errors';
import { toAppError } from '../http/error-middleware';

/** GraphQL's mapping of AppError: the same `code`, `message` and `details` as REST, in `extensions`. */
export function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = error instanceof GraphQLError ? error.originalError : error;
  // Errors without an original are GraphQL's own (syntax, validation): already safe and specific.
  if (!original || (error instanceof GraphQLError && !error.originalError)) {
    return { ...formatted, extensions: { ...formatted.extensions, code: 'graphql_validation_failed', status: 400 } };
  }
  const appError = original instanceof AppError ? original : toAppError(original);
  return {
    message: appError.message,
    locations: formatted.locations,
    path: formatted.path,
    extensions: { code: appError.code, status: appError.status, ...(appError.details ? { details: appError.details } : {}) },
  };
}
