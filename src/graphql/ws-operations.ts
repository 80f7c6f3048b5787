import { type ExecutionArgs, type GraphQLError, type GraphQLSchema, validate } from 'graphql';
import type { ServerOptions } from 'graphql-ws';
import { formatGraphQLError } from './format-error';
import { checkQuery, type QueryLimits } from './query-limits';

/**
 * graphql-ws hooks for each operation a socket sends: parse and validate it
 * here (graphql-ws would otherwise close the socket on a syntax error), so
 * that a bad operation gets an `error` message with the same codes as over
 * HTTP (src/graphql/format-error.ts) and the connection stays open. The
 * document bounds (src/graphql/query-limits.ts) are checked first.
 */
export function wsOperationHooks(schema: GraphQLSchema, limits: QueryLimits): Pick<ServerOptions, 'onSubscribe' | 'onError'> {
  return {
    onSubscribe: (_ctx, _id, payload): ExecutionArgs | readonly GraphQLError[] => {
      const checked = checkQuery(schema, payload.query, payload.variables, limits);
      if (!checked.ok) return [checked.error];
      const { document } = checked;
      const errors = validate(schema, document);
      if (errors.length > 0) return errors;
      return { schema, document, operationName: payload.operationName, variableValues: payload.variables };
    },
    onError: (_ctx, _id, _payload, errors) => errors.map((e) => formatGraphQLError(e.toJSON(), e)),
  };
}
