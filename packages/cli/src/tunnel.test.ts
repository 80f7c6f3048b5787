import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { GraphQLID, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { ApiClient } from './api-client';
import { ConfigStore } from './config-store';
import { Tunnel } from './tunnel';

/**
 * The tunnel against a small graphql-ws server that checks the bearer token
 * and can drop connections or close them with 4401, as the API does when an
 * access token expires.
 */
describe('the tunnel', () => {
  let server: http.Server;
  let wss: WebSocketServer;
  let apiUrl: string;
  let home: string;
  let store: ConfigStore;
  /** Tokens the server accepts, and what each connection authenticated with. */
  const valid = new Set<string>();
  const connectedWith: string[] = [];
  /** Subscriptions started so far; `send` reaches every one still open (a closed one's generator just never yields again). */
  let subscriptions = 0;
  let listeners: Array<(eventId: string) => void> = [];
  const send = (eventId: string) => listeners.forEach((listener) => listener(eventId));

  const Forward = new GraphQLObjectType({ name: 'CliForward', fields: { eventId: { type: new GraphQLNonNull(GraphQLID) } } });
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLString } } }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: {
        cliForwards: {
          type: new GraphQLNonNull(Forward),
          subscribe: async function* () {
            const queue: string[] = [];
            let wake: (() => void) | undefined;
            const listener = (eventId: string) => {
              queue.push(eventId);
              wake?.();
            };
            listeners.push(listener);
            subscriptions++;
            for (;;) {
              while (queue.length) yield { cliForwards: { eventId: queue.shift() } };
              await new Promise<void>((resolve) => (wake = resolve));
            }
          },
        },
      },
    }),
  });

  beforeAll(async () => {
    server = http.createServer();
    wss = new WebSocketServer({ server, path: '/graphql' });
    useServer(
      {
        schema,
        onConnect: (ctx) => {
          const token = String((ctx.connectionParams as { authorization?: string }).authorization ?? '').replace('Bearer ', '');
          connectedWith.push(token);
          return valid.has(token);
        },
      },
      wss,
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => wss.close(resolve));
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-tunnel-'));
    store = new ConfigStore(path.join(home, 'relay', 'config.json'));
    store.write({ api_url: apiUrl, access_token: 'at-0', refresh_token: 'rt-0', access_token_expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    valid.clear();
    valid.add('at-0');
    connectedWith.length = 0;
    listeners = [];
    subscriptions = 0;
  });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  /** The API's refreshToken over HTTP: a new pair, or a refusal. */
  const refreshing = (refuse = false) => {
    let n = 0;
    return (async () => {
      if (refuse) return Response.json({ errors: [{ message: 'The refresh token is invalid: log in again.', extensions: { code: 'invalid_refresh_token', status: 401 } }] });
      const token = `at-${++n}`;
      valid.add(token);
      return Response.json({ data: { refreshToken: { accessToken: token, refreshToken: `rt-${n}`, expiresIn: 3600, user: { id: 'u', email: 'e@x' } } } });
    }) as unknown as typeof fetch;
  };

  function open(fetchImpl: typeof fetch, rotateBeforeMs?: number) {
    const seen: string[] = [];
    const notices: string[] = [];
    let fatal: Error | undefined;
    let ready = 0;
    const tunnel = new Tunnel(new ApiClient(apiUrl, store, fetchImpl), {
      query: 'subscription { cliForwards { eventId } }',
      variables: {},
      onForward: (f) => seen.push(f.eventId),
      onReady: () => ready++,
      onNotice: (message) => notices.push(message),
      onFatal: (err) => (fatal = err),
    }, rotateBeforeMs);
    tunnel.open();
    return { tunnel, seen, notices, fatal: () => fatal, ready: () => ready };
  }

  const until = async (check: () => boolean, what: string) => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
    if (!check()) throw new Error(`never: ${what} (${JSON.stringify({ connectedWith, subscriptions, sockets: sockets().length })})`);
  };
  const sockets = () => [...wss.clients];

  it('reconnects by itself after a drop and says so', async () => {
    const t = open(refreshing());
    try {
      await until(() => t.ready() === 1 && subscriptions === 1, 'subscribed');
      send('e1');
      await until(() => t.seen.includes('e1'), 'first forward');
      for (const socket of sockets()) socket.terminate();
      await until(() => t.notices.some((n) => n.startsWith('connection lost (1006')), 'the drop said');
      await until(() => t.notices.some((n) => /^reconnected after \d+ s$/.test(n)) && subscriptions === 2, 'reconnected');
      expect(t.notices).toContain('reconnecting (attempt 1)…');
      send('e2');
      await until(() => t.seen.includes('e2'), 'forward after the drop');
      expect(t.ready()).toBe(1);
      expect(t.fatal()).toBeUndefined();
    } finally {
      await t.tunnel.close();
    }
  });

  it('answers a 4401 (expired token) with a refreshed token and a new connection, silently', async () => {
    const t = open(refreshing());
    try {
      await until(() => subscriptions === 1, 'subscribed');
      for (const socket of sockets()) socket.close(4401, 'token_expired: The access token has expired');
      await until(() => connectedWith.includes('at-1') && subscriptions === 2, 'reconnected with a fresh token');
      send('e3');
      await until(() => t.seen.includes('e3'), 'forward on the new connection');
      expect(t.notices).toEqual([]);
      expect(store.read()).toMatchObject({ access_token: 'at-1', refresh_token: 'rt-1' });
      expect(t.fatal()).toBeUndefined();
    } finally {
      await t.tunnel.close();
    }
  });

  it('gives up with "refresh failed" when the refresh after a 4401 is refused', async () => {
    const t = open(refreshing(true));
    try {
      await until(() => subscriptions === 1, 'subscribed');
      for (const socket of sockets()) socket.close(4401, 'session_revoked');
      await until(() => t.fatal() !== undefined, 'a fatal error');
      expect(t.fatal()!.message).toMatch(/^refresh failed \(session expired, login again\)/);
    } finally {
      await t.tunnel.close();
    }
  });

  it('reconnects after a 1012 "service restart" but stops on a 4403 (access lost), without retrying', async () => {
    const t = open(refreshing());
    try {
      await until(() => subscriptions === 1, 'subscribed');
      for (const socket of sockets()) socket.close(1012, 'service restart');
      await until(() => t.notices.includes('connection lost (1012 service restart): reconnecting…') && subscriptions === 2, 'reconnected after 1012');
      for (const socket of sockets()) socket.close(4403, 'forbidden: You no longer have access to this project');
      await until(() => t.fatal() !== undefined, 'a fatal error');
      expect(t.fatal()!.message).toBe('access refused by the API: forbidden: You no longer have access to this project');
      await new Promise((r) => setTimeout(r, 1_500));
      expect(subscriptions).toBe(2);
      expect(t.notices.filter((n) => n.startsWith('connection lost'))).toHaveLength(1);
    } finally {
      await t.tunnel.close();
    }
  });

  it('moves to a fresh connection before the access token expires, then closes the old one', async () => {
    // Fresh enough for the first connection (more than the 30 s refresh margin left); the move is due 29 s before expiry, about 2 s from now.
    store.write({ ...store.read()!, access_token_expires_at: new Date(Date.now() + 31_000).toISOString() });
    const t = open(refreshing(), 29_000);
    try {
      await until(() => subscriptions === 1, 'subscribed');
      expect(connectedWith).toEqual(['at-0']);
      await until(() => connectedWith.includes('at-1') && subscriptions === 2 && sockets().length === 1, 'one fresh connection left');
      send('e4');
      await until(() => t.seen.includes('e4'), 'forward on the fresh connection');
      expect(t.notices).toEqual([]);
    } finally {
      await t.tunnel.close();
    }
  });
});
