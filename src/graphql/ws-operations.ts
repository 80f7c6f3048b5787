import { type ExecutionArgs, GraphQLError, type GraphQLSchema, parse, validate } from 'graphql';
import type { ServerOptions } from 'graphql-ws';
import { formatGraphQLError } from './format-error';

/**
 * graphql-ws hooks for each operation a socket sends: parse and validate it
 * here (graphql-ws would otherwise close the socket on a syntax error), so
 * that a bad operation gets an `error` message with the same codes as over
 * HTTP (src/graphql/format-error.ts) and the connection stays open.
 */
export function wsOperationHooks(schema: GraphQLSchema): Pick<ServerOptions, 'onSubscribe' | 'onError'> {
  return {
    onSubscribe: (_ctx, _id, payload): ExecutionArgs | readonly GraphQLError[] => {
      let document;
      try {
        document = parse(payload.query);
      } catch (err) {
        const syntax = err as GraphQLError;
        return [new GraphQLError(syntax.message, { source: syntax.source, positions: syntax.positions, extensions: { code: 'GRAPHQL_PARSE_FAILED' } })];
      }
      const errors = validate(schema, document);
      if (errors.length > 0) return errors;
      return { schema, document, operationName: payload.operationName, variableValues: payload.variables };
    },
    onError: (_ctx, _id, _payload, errors) => errors.map((e) => formatGraphQLError(e.toJSON(), e)),
  };
}
