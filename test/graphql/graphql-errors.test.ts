import type { Client } from 'graphql-ws';
import pino from 'pino';
import { type AppContainer, createContainer } from '../../src/app/container';
import { type ApiServer, startApiServer } from '../../src/http/server';
import { gql, rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { createWorkspace } from '../support/factories';
import { liveClient, subscribe } from '../support/live-client';
import { createTestDatabase, testConfig, type TestDatabase } from '../support/test-env';

/** GraphQL's own errors (syntax, validation, variable values) carry their real message and a specific code, over HTTP and graphql-ws. */
describe('GraphQL syntax and validation errors', () => {
  let api: TestApi;
  let token: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    api = await startTestApi();
    const ws = await createWorkspace(api.container.orm.em.fork());
    token = await tokenFor(api.container, ws.user.id);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await api.close();
  });

  it('answers a syntax error over HTTP with graphql_parse_failed and the parser message', async () => {
    const res = await gql(api.baseUrl, '{ projects { data { id } ', {}, { token });
    expect(res.status).toBe(400);
    expect(res.errors).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/^Syntax Error: Expected Name, found <EOF>/), extensions: expect.objectContaining({ code: 'graphql_parse_failed', status: 400 }) }),
    ]);
  });

  it('answers an unknown field over HTTP with graphql_validation_failed and the validator message', async () => {
    const res = await gql(api.baseUrl, '{ projects { data { nope } } }', {}, { token });
    expect(res.status).toBe(400);
    expect(res.errors?.[0]).toMatchObject({ message: expect.stringContaining('Cannot query field "nope"'), extensions: { code: 'graphql_validation_failed', status: 400 } });
  });

  it('answers a variable of the wrong type over HTTP with graphql_validation_failed', async () => {
    const res = await gql(api.baseUrl, 'query($limit: Int) { projects(limit: $limit) { data { id } } }', { limit: 'many' }, { token });
    expect(res.status).toBe(400);
    expect(res.errors?.[0]).toMatchObject({ message: expect.stringContaining('$limit'), extensions: { code: 'graphql_validation_failed', status: 400 } });
  });

  it('reads a query argument given as null as not given (unset variables), as REST reads an absent parameter', async () => {
    const query = 'query($cursor: String, $endpointId: ID, $status: String) { events(cursor: $cursor, endpointId: $endpointId, status: $status) { data { id } nextCursor } }';
    const res = await gql(api.baseUrl, query, { cursor: null, endpointId: null, status: null }, { token });
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({ events: { data: [], nextCursor: null } });
  });

  it('answers the same errors over graphql-ws, keeping the connection open', async () => {
    const { client } = liveClient(api.baseUrl, token);
    clients.push(client);
    const broken = subscribe(client, 'subscription { eventReceived { id ');
    expect((await broken.next()).errors?.[0]).toMatchObject({ message: expect.stringMatching(/^Syntax Error/), extensions: { code: 'graphql_parse_failed', status: 400 } });
    const invalid = subscribe(client, 'subscription { eventReceived { nope } }');
    expect((await invalid.next()).errors?.[0]).toMatchObject({ message: expect.stringContaining('Cannot query field "nope"'), extensions: { code: 'graphql_validation_failed', status: 400 } });
  });
});

/**
 * A server fault (here: a table PostgreSQL no longer has) is logged with its stack and a request id that the answer
 * carries, in every transport; a client's mistake is logged at `info`, without a stack, so an operator alerting on
 * `error` lines is not paged by a client's typo.
 */
describe('server faults: logged with a request id the answer carries; client mistakes are not errors', () => {
  const logLines: Array<{ level: number; msg: string; requestId?: string; err?: { stack?: string }; code?: string }> = [];
  let env: { container: AppContainer; db: TestDatabase };
  let server: ApiServer;
  let base: string;
  let token: string;
  let client: Client | undefined;

  beforeAll(async () => {
    const db = await createTestDatabase();
    const config = testConfig({ DATABASE_URL: db.url });
    env = { db, container: await createContainer(config, pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line)) })) };
    server = await startApiServer(env.container, 0, '127.0.0.1');
    base = server.url;
    const ws = await createWorkspace(env.container.orm.em.fork());
    token = await tokenFor(env.container, ws.user.id);
    await env.container.orm.em.getConnection().execute('alter table api_keys rename to api_keys_elsewhere');
  });
  afterAll(async () => {
    await client?.dispose();
    await server.close();
    await env.container.close();
    await env.db.drop();
  });

  const loggedWith = (requestId: unknown) => logLines.filter((l) => l.requestId === requestId);

  it('over HTTP: internal_error with details.request_id, the X-Request-Id of the answer and of the logged stack', async () => {
    const res = await gql(base, '{ apiKeys { data { id } } }', {}, { token });
    expect(res.errors?.[0]).toMatchObject({ extensions: { code: 'internal_error', status: 500, details: { request_id: expect.any(String) } } });
    const requestId = res.errors?.[0].extensions?.details?.request_id;
    expect(res.headers.get('x-request-id')).toBe(requestId);
    expect(loggedWith(requestId)).toEqual([expect.objectContaining({ msg: 'GraphQL operation failed', err: expect.objectContaining({ stack: expect.stringContaining('api_keys') }) })]);
  });

  it('over graphql-ws: the same, with the operation’s own request id', async () => {
    ({ client } = liveClient(base, token));
    const result = await subscribe(client, '{ apiKeys { data { id } } }').next();
    expect(result.errors?.[0]).toMatchObject({ extensions: { code: 'internal_error', status: 500, details: { request_id: expect.any(String) } } });
    const requestId = (result.errors?.[0].extensions?.details as { request_id: string }).request_id;
    expect(loggedWith(requestId)).toEqual([expect.objectContaining({ msg: 'GraphQL operation failed', err: expect.objectContaining({ stack: expect.any(String) }) })]);
  });

  it('over REST: the same request id in the body, the header and the log', async () => {
    const res = await rest(base, 'GET', '/v1/api-keys', { token });
    expect(res.status).toBe(500);
    expect(res.body.error).toMatchObject({ code: 'internal_error', details: { request_id: res.headers.get('x-request-id') } });
    expect(loggedWith(res.headers.get('x-request-id'))).toEqual([expect.objectContaining({ msg: 'request failed', err: expect.objectContaining({ stack: expect.any(String) }) })]);
  });

  it('logs client mistakes (GraphQL syntax, validation, variables, a missing resource; REST 4xx) at info without a stack', async () => {
    const errorsBefore = logLines.filter((l) => l.level >= 50).length;
    const refused = [
      await gql(base, '{ projects { data { id } ', {}, { token }),
      await gql(base, '{ projects { data { nope } } }', {}, { token }),
      await gql(base, 'query($limit: Int) { projects(limit: $limit) { data { id } } }', { limit: 'many' }, { token }),
      await gql(base, '{ event(id: "0190d6a0-0000-7000-8000-000000000000") { id } }', {}, { token }),
    ];
    expect(refused.map((r) => r.errors?.[0].extensions?.code)).toEqual(['graphql_parse_failed', 'graphql_validation_failed', 'graphql_validation_failed', 'not_found']);
    const rested = [
      await rest(base, 'GET', '/v1/endpoints/0190d6a0-0000-7000-8000-000000000000', { token }),
      await rest(base, 'POST', '/v1/endpoints', { token, body: { name: '' } }),
      await rest(base, 'GET', '/v1/projects'),
      await rest(base, 'GET', '/v1/no-such-route', { token }),
    ];
    expect(rested.map((r) => r.status)).toEqual([404, 400, 401, 404]);
    const live = liveClient(base, token).client;
    expect((await subscribe(live, 'subscription { eventReceived { id ').next()).errors?.[0].extensions?.code).toBe('graphql_parse_failed');
    await live.dispose();

    expect(logLines.filter((l) => l.level >= 50).slice(errorsBefore)).toEqual([]);
    for (const r of [...refused, ...rested]) {
      const requestId = r.headers.get('x-request-id');
      expect(loggedWith(requestId)).toEqual([expect.objectContaining({ level: 30, code: expect.any(String) })]);
      expect(loggedWith(requestId)[0].err).toBeUndefined();
    }
  });
});
