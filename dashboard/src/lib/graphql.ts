import { Client, fetchExchange, subscriptionExchange, type CombinedError } from '@urql/core';
import { createClient as createWsClient } from 'graphql-ws';
import { currentAccessToken, forceRefresh } from './auth';
import { retryDelayMs, watchConnection } from './connection';

interface GraphQLBody {
  errors?: { extensions?: { code?: string } }[];
}

/** fetch with the bearer token; one silent refresh and retry when the API says `unauthenticated`. */
async function authedFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const send = (token: string | null) => {
    const headers = new Headers(init.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const token = await currentAccessToken();
  const res = await send(token);
  if (!token) return res;
  const body = (await res.clone().json().catch(() => ({}))) as GraphQLBody;
  if (!body.errors?.some((e) => e.extensions?.code === 'unauthenticated')) return res;
  return send(await forceRefresh());
}

function wsUrl(): string {
  const { protocol, host } = window.location;
  return `${protocol === 'https:' ? 'wss' : 'ws'}://${host}/graphql`;
}

/** The one urql client: queries and mutations over HTTP, subscriptions over graphql-ws on the same path. */
export function createGraphQLClient(): Client {
  const ws = createWsClient({
    url: wsUrl(),
    lazy: true,
    // Reconnect on every close (a restart's 1012, a crash, a network cut), forever, with jitter (src/lib/connection.ts).
    retryAttempts: Infinity,
    shouldRetry: () => true,
    retryWait: (tries) => new Promise((resolve) => setTimeout(resolve, retryDelayMs(tries))),
    // A ping every 10 s; no pong within 5 s closes the socket (a laptop that slept, a dead peer), which retries.
    keepAlive: 10_000,
    connectionParams: async () => {
      const token = await currentAccessToken();
      return token ? { authorization: `Bearer ${token}` } : {};
    },
  });
  watchConnection(ws);
  attachPongTimeout(ws);
  return new Client({
    url: '/graphql',
    fetch: authedFetch,
    preferGetMethod: false,
    requestPolicy: 'cache-and-network',
    exchanges: [
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({ unsubscribe: ws.subscribe({ ...request, query: request.query ?? '' }, sink) }),
        }),
      }),
    ],
  });
}

/** Closes a socket whose pong does not come within 5 s of a ping (4408: the client's "terminated" path retries). */
function attachPongTimeout(ws: ReturnType<typeof createWsClient>): void {
  let socket: WebSocket | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  ws.on('opened', (s) => (socket = s as WebSocket));
  ws.on('ping', (received) => {
    if (received) return;
    clearTimeout(timer);
    timer = setTimeout(() => socket?.readyState === WebSocket.OPEN && ws.terminate(), 5_000);
  });
  ws.on('pong', (received) => received && clearTimeout(timer));
  ws.on('closed', () => clearTimeout(timer));
}

export interface FieldProblem {
  field: string;
  message: string;
}

/** The docs/api.md#errors code of the first GraphQL error, e.g. `forbidden`, `invalid_input`. */
export function errorCode(error: CombinedError | undefined): string | undefined {
  const code = error?.graphQLErrors[0]?.extensions?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Field-level problems of an `invalid_input` error (`details.fields`, snake_case field paths). */
export function fieldProblems(error: CombinedError | undefined): FieldProblem[] {
  const details = error?.graphQLErrors[0]?.extensions?.details as { fields?: FieldProblem[] } | undefined;
  return details?.fields ?? [];
}

/** A message for people: the API's own message without urql's "[GraphQL]" prefix. */
export function errorMessage(error: CombinedError | undefined): string | undefined {
  if (!error) return undefined;
  return error.graphQLErrors[0]?.message ?? error.networkError?.message ?? error.message;
}
