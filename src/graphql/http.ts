import { ApolloServer, HeaderMap } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import type { Context, Middleware } from 'koa';
import type { AppContainer } from '../app/container';
import { readJsonBody } from '../http/json-body';
import { createGraphQLContext, type GraphQLContext } from './context';
import { formatGraphQLError } from './format-error';

/**
 * Apollo Server behind Koa at `/graphql`. `@as-integrations/koa` is ESM-only
 * and needs Node 22, so this small middleware calls
 * `executeHTTPGraphQLRequest` itself.
 */
export function createApolloServer(schema: GraphQLSchema, plugins: ConstructorParameters<typeof ApolloServer>[0]['plugins'] = []) {
  return new ApolloServer<GraphQLContext>({
    schema,
    formatError: formatGraphQLError,
    introspection: true,
    // The process owns SIGINT/SIGTERM (src/cli/relay.ts) and stops Apollo in order; Apollo's own handler re-raises the signal.
    stopOnTerminationSignals: false,
    plugins,
  });
}

export function graphqlMiddleware(container: AppContainer, apollo: ApolloServer<GraphQLContext>, maxBodyBytes = 1024 * 1024): Middleware {
  return async (ctx: Context, next) => {
    if (ctx.path !== '/graphql') return next();
    const body = ctx.method === 'POST' ? await readJsonBody(ctx.req, maxBodyBytes) : undefined;
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(ctx.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: ctx.method.toUpperCase(), headers, search: ctx.querystring, body },
      context: () =>
        createGraphQLContext(
          container,
          { authorization: ctx.get('authorization') || undefined, projectId: ctx.get('x-project-id') || undefined, clientIp: ctx.ip },
          ctx.state.requestId,
        ),
    });
    for (const [key, value] of response.headers) ctx.set(key, value);
    ctx.status = response.status ?? 200;
    if (response.body.kind === 'complete') {
      ctx.body = response.body.string;
      return;
    }
    const chunks: string[] = [];
    for await (const chunk of response.body.asyncIterator) chunks.push(chunk);
    ctx.body = chunks.join('');
  };
}
