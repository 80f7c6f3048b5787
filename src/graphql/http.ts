import { ApolloServer, HeaderMap } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import type { Context, Middleware } from 'koa';
import type { AppContainer } from '../app/container';
import type { Logger } from '../common/logger';
import { stringifyJson } from '../common/raw-json';
import { readJsonBody } from '../http/json-body';
import { createGraphQLContext, type GraphQLContext } from './context';
import type { ManagementRateLimiter } from '../rate-limit/management-rate-limit';
import { formatGraphQLError, serverFaultPlugin } from './format-error';
import { pageRowsPlugin } from './page-rows';
import { checkQuery, type QueryLimits } from './query-limits';

/**
 * Apollo Server behind Koa at `/graphql`. `@as-integrations/koa` is ESM-only
 * and needs Node 22, so this small middleware calls
 * `executeHTTPGraphQLRequest` itself.
 */
export function createApolloServer(schema: GraphQLSchema, log: Logger, plugins: ConstructorParameters<typeof ApolloServer>[0]['plugins'] = []) {
  return new ApolloServer<GraphQLContext>({
    schema,
    formatError: formatGraphQLError,
    introspection: true,
    // The process owns SIGINT/SIGTERM (src/launcher/relay.ts) and stops Apollo in order; Apollo's own handler re-raises the signal.
    stopOnTerminationSignals: false,
    // JSON scalars holding stored JSON (event payloads) are written as their exact text (src/common/raw-json.ts).
    stringifyResult: (result) => `${stringifyJson(result)}\n`,
    plugins: [pageRowsPlugin, serverFaultPlugin(log), ...plugins],
  });
}

export interface GraphQLHttpOptions {
  schema: GraphQLSchema;
  limits: QueryLimits;
  rateLimiter: ManagementRateLimiter;
}

/** The operation's source and variables, from a POST body or GET query string. */
function operationOf(ctx: Context, body: unknown): { query: unknown; variables: Record<string, unknown> | undefined } {
  if (ctx.method !== 'POST') {
    let variables: Record<string, unknown> | undefined;
    try {
      variables = typeof ctx.query.variables === 'string' ? JSON.parse(ctx.query.variables) : undefined;
    } catch {
      // Apollo answers malformed variables itself.
    }
    return { query: ctx.query.query, variables };
  }
  const b = (body ?? {}) as { query?: unknown; variables?: unknown };
  return { query: b.query, variables: b.variables && typeof b.variables === 'object' ? (b.variables as Record<string, unknown>) : undefined };
}

export function graphqlMiddleware(container: AppContainer, apollo: ApolloServer<GraphQLContext>, { schema, limits, rateLimiter }: GraphQLHttpOptions): Middleware {
  const { RELAY_MAX_BODY_BYTES: maxBodyBytes } = container.config;
  return async (ctx: Context, next) => {
    if (ctx.path !== '/graphql') return next();
    const body = ctx.method === 'POST' ? await readJsonBody(ctx.req, maxBodyBytes) : undefined;
    const { query, variables } = operationOf(ctx, body);
    const checked = typeof query === 'string' ? checkQuery(schema, query, variables, limits) : undefined;
    // One unit before anything runs (a refused or malformed request counts once); the rows it returned after it ran.
    await rateLimiter.charge(ctx, 1);
    if (checked && !checked.ok && checked.error.extensions.code === 'query_too_complex') {
      ctx.status = 400;
      ctx.type = 'application/json';
      ctx.body = { errors: [formatGraphQLError(checked.error.toJSON(), checked.error)] };
      return;
    }
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(ctx.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const usage = { pageRows: 0 };
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: ctx.method.toUpperCase(), headers, search: ctx.querystring, body },
      context: async () => ({
        ...(await createGraphQLContext(
          container,
          // An empty X-Project-Id is kept, to be refused as in REST (src/auth/access.ts).
          { authorization: ctx.get('authorization') || undefined, projectId: ctx.headers['x-project-id'] as string | undefined, projectFrom: 'X-Project-Id', clientIp: ctx.ip },
          ctx.state.requestId,
        )),
        usage,
      }),
    });
    await rateLimiter.chargeRows(ctx, usage.pageRows);
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
