import type { Client } from 'graphql-ws';
import { gql, rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { createWorkspace } from '../support/factories';
import { liveClient, subscribe } from '../support/live-client';

const tooComplex = (limit: string, value: number, max: number) => ({
  message: expect.stringContaining(`${limit} is ${value}, the limit is ${max}`),
  extensions: { code: 'query_too_complex', status: 400, details: { limit, value, max } },
});

/** GraphQL document bounds (src/graphql/query-limits.ts), over HTTP and graphql-ws, and the cost charged to the rate limit. */
describe('GraphQL query limits', () => {
  let api: TestApi;
  let token: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    api = await startTestApi({
      RELAY_GRAPHQL_MAX_DOCUMENT_BYTES: '400000',
      RELAY_GRAPHQL_MAX_DEPTH: '6',
      RELAY_GRAPHQL_MAX_ALIASES: '20',
      RELAY_GRAPHQL_MAX_COST: '500',
      RELAY_API_RATE_LIMIT: '100000',
    });
    const ws = await createWorkspace(api.container.orm.em.fork());
    token = await tokenFor(api.container, ws.user.id);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await api.close();
  });

  it('refuses the 10,000-alias document by its alias count, before validating or running it', async () => {
    const query = `{ ${Array.from({ length: 10_000 }, (_, i) => `a${i}: events { data { id } }`).join(' ')} }`;
    const res = await gql(api.baseUrl, query, {}, { token });
    expect(res.status).toBe(400);
    expect(res.data).toBeUndefined();
    expect(res.errors).toEqual([expect.objectContaining(tooComplex('number of aliases', 10_000, 20))]);
  });

  it('refuses a document over the size limit before parsing it', async () => {
    const query = `{ health ${' '.repeat(400_000)} }`;
    const res = await gql(api.baseUrl, query, {}, { token });
    expect(res.status).toBe(400);
    expect(res.errors).toEqual([expect.objectContaining(tooComplex('document size in bytes', Buffer.byteLength(query), 400_000))]);
  });

  it('refuses nesting deeper than the limit, counting through fragments', async () => {
    const query = '{ __schema { types { ...deep } } } fragment deep on __Type { fields { type { ofType { ofType { name } } } } }';
    const res = await gql(api.baseUrl, query, {}, { token });
    expect(res.errors).toEqual([expect.objectContaining(tooComplex('depth', 7, 6))]);
  });

  it('weighs pages by their limit (default 50), from literals and variables', async () => {
    // 1 + 50 × (data 1 + id 1 + eventType 1) = 151: allowed.
    const page = await gql(api.baseUrl, '{ events { data { id eventType } } }', {}, { token });
    expect(page.errors).toBeUndefined();
    expect(page.data.events.data).toEqual([]);
    const big = await gql(api.baseUrl, 'query($n: Int) { events(limit: $n) { data { id eventType } } }', { n: 200 }, { token });
    expect(big.errors).toEqual([expect.objectContaining(tooComplex('cost', 601, 500))]);
    const literal = await gql(api.baseUrl, '{ events(limit: 200) { data { id eventType } } }', {}, { token });
    expect(literal.errors?.[0].extensions?.code).toBe('query_too_complex');
  });

  it('charges a refused document one unit against the management rate limit, and a page by the rows it returned', async () => {
    const remaining = async (query: string) => Number((await rest(api.baseUrl, 'POST', '/graphql', { token, body: { query } })).headers.get('ratelimit-remaining'));
    const first = await remaining('{ health }');
    const afterCheap = await remaining('{ health }');
    const afterRefused = await remaining('{ events(limit: 200) { data { id eventType } } }');
    const afterPage = await remaining('{ events { data { id eventType } } }');
    expect(first - afterCheap).toBe(1);
    expect(afterCheap - afterRefused).toBe(1);
    // No events: one unit, whatever the page could have held (test/accounts/rate-budget.test.ts has the rows).
    expect(afterRefused - afterPage).toBe(1);
  });

  it('applies the same limits to subscriptions over graphql-ws', async () => {
    const { client } = liveClient(api.baseUrl, token);
    clients.push(client);
    const aliased = subscribe(client, `subscription { ${Array.from({ length: 21 }, (_, i) => `a${i}: eventReceived { id }`).join(' ')} }`);
    expect((await aliased.next()).errors).toEqual([expect.objectContaining(tooComplex('number of aliases', 21, 20))]);
  });
});
