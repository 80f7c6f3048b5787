import type { ExecutionResult } from 'graphql';
import type { ServerOptions } from 'graphql-ws';
import type { WebSocket } from 'ws';
import type { AppContainer } from '../app/container';
import { UnauthenticatedError } from '../common/errors';
import { resolvePrincipal } from '../auth/principal';
import type { GraphQLContext } from '../graphql/context';
import { formatOperationErrors } from '../graphql/format-error';
import { SubscriptionGate, WS_UNAUTHORIZED } from './subscription-access';

export { WS_UNAUTHORIZED };

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** `connectionParams.authorization` ("Bearer <token>"), as the ws context reads it too. */
export function wsAuthorization(params: unknown): string | undefined {
  const p = (params ?? {}) as Record<string, unknown>;
  return text(p.authorization ?? p.Authorization);
}

const isStream = (value: unknown): value is AsyncIterable<ExecutionResult> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/**
 * Hooks of the graphql-ws server (src/http/server.ts): a connection is
 * authenticated when it opens — without a valid credential in
 * `connectionParams.authorization` it is closed with 4401 and the reason —;
 * every subscription's stream goes through the access gate
 * (src/subscriptions/subscription-access.ts), which closes the socket when
 * access ends or the token expires; and errors of operations carry the same
 * `extensions.code` as over HTTP.
 */
export function wsHooks(container: AppContainer): Pick<ServerOptions<Record<string, unknown>, { socket: WebSocket }>, 'onConnect' | 'onOperation' | 'onNext'> {
  return {
    onConnect: async (ctx) => {
      const em = container.orm.em.fork();
      const { principal, error } = await resolvePrincipal(container, em, wsAuthorization(ctx.connectionParams));
      if (principal) return true;
      const refused = error ?? new UnauthenticatedError('Authentication required: send connectionParams { authorization: "Bearer <token>" }.');
      // A close reason is at most 123 bytes.
      ctx.extra.socket.close(WS_UNAUTHORIZED, `${refused.code}: ${refused.message}`.slice(0, 120));
      return false;
    },
    onOperation: (ctx, _id, _payload, args, result) => {
      if (!isStream(result)) return undefined;
      const socket = ctx.extra.socket;
      return SubscriptionGate.for(container).guard(args.contextValue as GraphQLContext, result, (code, reason) => socket.close(code, reason));
    },
    onNext: (_ctx, _id, _payload, args, result: ExecutionResult) =>
      result.errors ? { ...result, errors: formatOperationErrors(container.log, (args.contextValue as GraphQLContext).ctx.requestId, result.errors) } : undefined,
  };
}
