import type { Client } from 'graphql-ws';
import { gql, startTestApi, type TestApi, tokenFor } from '../support/api';
import { createWorkspace } from '../support/factories';
import { liveClient, subscribe } from '../support/live-client';

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
