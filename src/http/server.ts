import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { AppContainer } from '../app/container';
import { markRawJson, unmarkRawJson } from '../common/raw-json';
import { createGraphQLContext } from '../graphql/context';
import { createApolloServer, graphqlMiddleware } from '../graphql/http';
import { buildRelaySchema } from '../graphql/schema';
import { queryLimitsFrom } from '../graphql/query-limits';
import { wsOperationHooks } from '../graphql/ws-operations';
import { managementRateLimiter } from '../rate-limit/management-rate-limit';
import { wsHooks } from '../subscriptions/ws-hooks';
import { createHttpApp } from './app';
import { clientAddress } from './client-address';
import { answerClientError } from './error-middleware';

export interface ApiServer {
  url: string;
  port: number;
  /**
   * Graceful shutdown, first step: every graphql-ws socket is closed with 1012
   * "service restart" (clients reconnect, to this process once it is back or to
   * another one) and sockets opened from now on get the same answer.
   */
  closeSockets(): Promise<void>;
  close(): Promise<void>;
}

/** RFC 6455 §7.4 (IANA registry): the service is restarting; the client reconnects. */
export const WS_SERVICE_RESTART = 1012;
const SOCKET_CLOSE_WAIT_MS = 1_000;

/** Koa + Apollo on one http.Server, with graphql-ws subscriptions on the same port at `/graphql`. */
export async function startApiServer(container: AppContainer, port = container.config.PORT, host = container.config.HOST): Promise<ApiServer> {
  const schema = await buildRelaySchema();
  const limits = queryLimitsFrom(container.config);
  const { RELAY_HTTP_HEADERS_TIMEOUT_MS, RELAY_HTTP_REQUEST_TIMEOUT_MS } = container.config;
  const httpServer = http.createServer({
    requestTimeout: RELAY_HTTP_REQUEST_TIMEOUT_MS,
    // Node refuses a headers timeout longer than the request timeout.
    headersTimeout: Math.min(RELAY_HTTP_HEADERS_TIMEOUT_MS, RELAY_HTTP_REQUEST_TIMEOUT_MS),
    // How often Node looks for requests past those timeouts (its default, 30 s, would stretch a short timeout).
    connectionsCheckingInterval: Math.min(30_000, Math.ceil(RELAY_HTTP_HEADERS_TIMEOUT_MS / 2)),
  });
  const wsServer = new WebSocketServer({ server: httpServer, path: '/graphql' });
  const wsCleanup = useServer(
    {
      schema,
      context: (ctx) => {
        const params = (ctx.connectionParams ?? {}) as Record<string, unknown>;
        const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
        return createGraphQLContext(container, {
          authorization: text(params.authorization ?? params.Authorization),
          projectId: text(params.projectId),
          projectFrom: 'projectId',
          clientIp: clientAddress(ctx.extra.request, container.config.RELAY_TRUST_PROXY),
        });
      },
      ...wsHooks(container),
      ...wsOperationHooks(schema, limits),
      // Payloads are sent as stored (numbers exact): marked here, written in by each socket's send below.
      jsonMessageReplacer: markRawJson,
    },
    wsServer,
  );
  wsServer.on('connection', (socket) => {
    const send = socket.send.bind(socket) as (data: unknown, cb?: (err?: Error) => void) => void;
    socket.send = ((data: unknown, cb?: (err?: Error) => void) => send(typeof data === 'string' ? unmarkRawJson(data) : data, cb)) as typeof socket.send;
  });
  const apollo = createApolloServer(schema, container.log, [
    ApolloServerPluginDrainHttpServer({ httpServer }),
    { serverWillStart: async () => ({ drainServer: async () => wsCleanup.dispose() }) },
  ]);
  await apollo.start();
  const rateLimiter = managementRateLimiter(container);
  const app = createHttpApp(container, rateLimiter, graphqlMiddleware(container, apollo, { schema, limits, rateLimiter }));
  httpServer.on('request', app.callback());
  httpServer.on('clientError', answerClientError);
  httpServer.keepAliveTimeout = 65_000;

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, host, () => resolve());
  });
  const actualPort = (httpServer.address() as AddressInfo).port;
  let restarting = false;
  wsServer.on('connection', (socket) => restarting && socket.close(WS_SERVICE_RESTART, 'service restart'));
  return {
    port: actualPort,
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${actualPort}`,
    closeSockets: async () => {
      restarting = true;
      const closed = [...wsServer.clients].map(
        (socket) =>
          new Promise<void>((resolve) => {
            socket.once('close', () => resolve());
            socket.close(WS_SERVICE_RESTART, 'service restart');
          }),
      );
      // A client that does not answer the close frame is not waited for long (the drain below ends it).
      await Promise.race([Promise.all(closed), new Promise((r) => setTimeout(r, SOCKET_CLOSE_WAIT_MS).unref())]);
    },
    close: async () => {
      await apollo.stop();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
