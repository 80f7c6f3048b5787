import { gql, rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { createEndpoint, createWorkspace, fanOutPending, insertEvent, type Workspace } from '../support/factories';
import { hubSignature, postHook } from '../support/ingress-helpers';

/** Payload and header search (`contains`, `q`) over REST and GraphQL, on real PostgreSQL and its indexes. */
describe('events search: JSON containment and text over payloads and header values', () => {
  let api: TestApi;
  let ws: Workspace;
  let token: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    api = await startTestApi();
    const em = api.container.orm.em.fork();
    ws = await createWorkspace(em);
    token = await tokenFor(api.container, ws.user.id);
    const { endpoint: a, signingSecret } = await createEndpoint(api.container, em, ws.project);
    const { endpoint: b } = await createEndpoint(api.container, em, ws.project);
    Object.assign(ids, { endpointA: a.id, endpointB: b.id, slugA: a.slug, secretA: signingSecret });
    ids.relayPush = await insertEvent(api.container, a, {
      eventType: 'push',
      payload: { repository: { name: 'relay', owner: 'acme' }, labels: ['bug', 'p1'], note: 'Deploy Relay now' },
      headers: { 'user-agent': 'GitHub-Hookshot/4f2a', 'x-custom-marker': 'plain' },
    });
    ids.otherPush = await insertEvent(api.container, a, { eventType: 'push', payload: { repository: { name: 'other' }, labels: ['bug'], discount: '50%_off' } });
    ids.relayIssue = await insertEvent(api.container, b, { eventType: 'issue', payload: { repository: { name: 'relay' }, labels: ['p1'] } });
    ids.relayPush2 = await insertEvent(api.container, a, { eventType: 'push', payload: { repository: { name: 'relay' }, size: 3 }, headers: { 'user-agent': 'curl/8' } });
    const { endpoint: theirs } = await createEndpoint(api.container, em, (await createWorkspace(em)).project);
    ids.theirs = await insertEvent(api.container, theirs, { payload: { repository: { name: 'relay' } } });
    ids.unfanned = await insertEvent(api.container, a, { payload: { repository: { name: 'relay' } }, status: 'filtered' });
    // Searchable once the outbox fans them out (no worker here): every event but the last.
    await api.container.orm.em.getConnection().execute(`update events set dispatched_at = now() where id = ?`, [ids.unfanned]);
    await fanOutPending(api.container);
  });
  afterAll(() => api?.close());

  const search = async (params: Record<string, string>) => {
    const res = await rest(api.baseUrl, 'GET', `/v1/events?${new URLSearchParams(params)}`, { token });
    expect(res.status).toBe(200);
    return res.body.data.map((e: { id: string }) => e.id);
  };

  it('contains: payloads holding the given nested JSON (objects and array members), newest first, only this project', async () => {
    // ids.unfanned holds the value but has no search row yet: search reads event_search, not the payload.
    expect(await search({ contains: '{"repository":{"name":"relay"}}' })).toEqual([ids.relayPush2, ids.relayIssue, ids.relayPush]);
    expect(await search({ contains: '{"labels":["bug"]}' })).toEqual([ids.otherPush, ids.relayPush]);
    expect(await search({ contains: '{"labels":["bug","p1"],"repository":{"owner":"acme"}}' })).toEqual([ids.relayPush]);
    expect(await search({ contains: '{"repository":{"name":"Relay"}}' })).toEqual([]);
    expect(await search({ contains: '{"size":3}' })).toEqual([ids.relayPush2]);
  });

  it('q: a case-insensitive substring, from a word start, of the payload text or of a header value, not of a header name; LIKE wildcards are plain text', async () => {
    expect(await search({ q: 'deploy relay' })).toEqual([ids.relayPush]);
    expect(await search({ q: 'deploy relay now!' })).toEqual([]);
    expect(await search({ q: 'hookshot' })).toEqual([ids.relayPush]);
    expect(await search({ q: 'HOOK' })).toEqual([ids.relayPush]);
    expect(await search({ q: 'github-hooks' })).toEqual([ids.relayPush]);
    expect(await search({ q: 'ookshot' })).toEqual([]);
    expect(await search({ q: 'curl/' })).toEqual([ids.relayPush2]);
    expect(await search({ q: 'x-custom-marker' })).toEqual([]);
    expect(await search({ q: '50%_' })).toEqual([ids.otherPush]);
    expect(await search({ q: '5%f' })).toEqual([]);
    expect(await search({ q: '"name":"relay"' })).toEqual([ids.relayPush2, ids.relayIssue, ids.relayPush]);
  });

  it("q's index pre-filter asks for whole words where the text ends them, and a prefix only for an open last word", async () => {
    const tsquery = async (q: string) =>
      (await api.container.orm.em.getConnection().execute<Array<{ t: string }>>('select relay_search_tsquery(?)::text as t', [q]))[0].t;
    expect(await tsquery('customer123@shop.example')).toBe("'customer123' & 'shop' & ( 'example' | 'example':* )");
    expect(await tsquery('Deploy Relay now!')).toBe("'deploy' & 'relay' & 'now'");
    expect(await tsquery('hook')).toBe("'hook' | 'hook':*");
  });

  it("q's pre-filter leaves out an open last word that starts most events' words (by ANALYZE's statistics), and keeps a rare one", async () => {
    const em = api.container.orm.em.fork();
    const other = await createWorkspace(em);
    const { endpoint } = await createEndpoint(api.container, em, other.project);
    for (let i = 0; i < 150; i++) await insertEvent(api.container, endpoint, { payload: { email: `customer${i}@shop.example`, ua: `Hookshot/${i.toString(16)}f00d` } });
    await fanOutPending(api.container);
    const connection = api.container.orm.em.getConnection();
    await connection.execute('analyze event_search');
    const tsquery = async (q: string) => (await connection.execute<Array<{ t: string }>>('select relay_search_tsquery(?)::text as t', [q]))[0].t;
    // `example` (and `exa`) start a word of most events: reading that prefix from the index would cost more than it narrows.
    expect(await tsquery('customer7@shop.example')).toBe("'customer7' & 'shop'");
    expect(await tsquery('customer7@shop.exa')).toBe("'customer7' & 'shop'");
    expect(await tsquery('customer7@shop.e')).toBe("'customer7' & 'shop'");
    // A rare last word stays (it is what makes the search fast); a single word is always kept; a closed one is exact.
    expect(await tsquery('hookshot/2af0')).toBe("'hookshot' & ( '2af0' | '2af0':* )");
    expect(await tsquery('example')).toBe("'example' | 'example':*");
    expect(await tsquery('shop.example.')).toBe("'shop' & 'example'");
    expect(await search({ q: 'customer7@shop.example' })).toEqual([]); // another project's event
    const mine = await rest(api.baseUrl, 'GET', `/v1/events?${new URLSearchParams({ q: 'customer7@shop.exam' })}`, { token: await tokenFor(api.container, other.user.id) });
    expect(mine.body.data).toHaveLength(1);
  });

  it('combines with the other filters and pages with the cursor', async () => {
    expect(await search({ contains: '{"repository":{"name":"relay"}}', event_type: 'push' })).toEqual([ids.relayPush2, ids.relayPush]);
    expect(await search({ contains: '{"repository":{"name":"relay"}}', endpoint_id: ids.endpointB })).toEqual([ids.relayIssue]);
    expect(await search({ contains: '{"labels":["p1"]}', q: 'hookshot' })).toEqual([ids.relayPush]);
    const first = await rest(api.baseUrl, 'GET', `/v1/events?limit=2&q=relay`, { token });
    expect(first.body.data.map((e: { id: string }) => e.id)).toEqual([ids.relayPush2, ids.relayIssue]);
    const second = await rest(api.baseUrl, 'GET', `/v1/events?limit=2&q=relay&cursor=${first.body.next_cursor}`, { token });
    expect(second.body).toEqual({ data: [expect.objectContaining({ id: ids.relayPush })], next_cursor: null });
  });

  it('GraphQL takes the same arguments and returns the same events', async () => {
    const res = await gql(
      api.baseUrl,
      `query($contains: String, $q: String) { events(contains: $contains, q: $q, eventType: "push") { data { id } nextCursor } }`,
      { contains: '{"repository":{"name":"relay"}}', q: 'RELAY' },
      { token, projectId: ws.project.id },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.events.data.map((e: { id: string }) => e.id)).toEqual([ids.relayPush2, ids.relayPush]);
  });

  it('bad search input is a 400 naming the field, in REST and GraphQL', async () => {
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [{ contains: '{"repository":' }, 'contains', /not valid JSON/],
      [{ contains: '"relay"' }, 'contains', /JSON object or array/],
      [{ contains: '{"a":"\\u0000"}' }, 'contains', /NUL/],
      [{ contains: '{"a":"\\ud800"}' }, 'contains', /surrogate/],
      [{ q: 're' }, 'q', /at least 3 characters/],
      [{ q: '":"' }, 'q', /a letter or a digit/],
      [{ q: '①②③' }, 'q', /a word the search can find/],
      [{ contains: `${'['.repeat(257)}${']'.repeat(257)}` }, 'contains', /more than 256 levels deep/],
      [{ contains: '{"n":1e200000}' }, 'contains', /outside the range/],
    ];
    for (const [params, field, message] of cases) {
      const res = await rest(api.baseUrl, 'GET', `/v1/events?${new URLSearchParams(params)}`, { token });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_input');
      expect(res.body.error.details.fields).toEqual([{ field, message: expect.stringMatching(message) }]);
    }
    // Deep enough to overflow a check by recursion; brackets unencoded, so the URL stays within the header limit.
    const deep = await rest(api.baseUrl, 'GET', `/v1/events?contains=${'['.repeat(4_000)}${']'.repeat(4_000)}`, { token });
    expect(deep.status).toBe(400);
    expect(deep.body.error.details.fields).toEqual([{ field: 'contains', message: expect.stringMatching(/more than 256 levels deep/) }]);
    expect((await rest(api.baseUrl, 'GET', `/v1/events?contains=${'['.repeat(256)}${']'.repeat(256)}`, { token })).status).toBe(200);
    const bad = await gql(api.baseUrl, `{ events(contains: "{nope") { data { id } } }`, {}, { token, projectId: ws.project.id });
    expect(bad.errors?.[0]).toMatchObject({ extensions: { code: 'invalid_input' } });
    expect(bad.errors?.[0].message).toMatch(/contains/);
    const query = 'query($contains: String, $q: String) { events(contains: $contains, q: $q) { data { id } } }';
    for (const [variables, field] of [
      [{ contains: `${'{"a":'.repeat(3_000)}1${'}'.repeat(3_000)}` }, 'contains'],
      [{ q: '①②③' }, 'q'],
    ] as const) {
      const res = await gql(api.baseUrl, query, variables, { token, projectId: ws.project.id });
      expect(res.errors?.[0].extensions).toMatchObject({ code: 'invalid_input', status: 400, details: { fields: [{ field }] } });
    }
  });

  it('contains: numbers compare as the exact decimal the sender wrote, beyond 2^53 and a double’s range', async () => {
    const body = '{"marker":"numbers","big":12345678901234567891,"huge":1e400,"tiny":1e-400,"price":19.90}';
    const res = await postHook(api.baseUrl, ids.slugA, body, hubSignature(ids.secretA, body));
    expect(res.status).toBe(202);
    await fanOutPending(api.container);
    const id = res.body.event_id;
    expect(await search({ contains: '{"big":12345678901234567891}' })).toEqual([id]);
    // The double nearest to both: a search through JSON.parse would match neither or both.
    expect(await search({ contains: '{"big":12345678901234567890}' })).toEqual([]);
    expect(await search({ contains: '{"big":12345678901234567000}' })).toEqual([]);
    expect(await search({ contains: '{"huge":1e400}' })).toEqual([id]);
    expect(await search({ contains: '{"huge":null}' })).toEqual([]);
    expect(await search({ contains: '{"tiny":1e-400}' })).toEqual([id]);
    expect(await search({ contains: '{"tiny":0}' })).toEqual([]);
    // The same value written another way is the same number.
    expect(await search({ contains: '{"price":19.9,"huge":10e399}' })).toEqual([id]);
    const g = await gql(api.baseUrl, 'query($c: String) { events(contains: $c) { data { id } } }', { c: '{"big":12345678901234567891}' }, { token, projectId: ws.project.id });
    expect(g.data.events.data).toEqual([{ id }]);
  });

  it('an ingested payload jsonb cannot hold (\\u0000, a lone surrogate) is stored, found by text, and skipped by containment', async () => {
    const body = '{"marker":"nul-escape-case","text":"a\\u0000b","lone":"\\ud800"}';
    const res = await postHook(api.baseUrl, ids.slugA, body, hubSignature(ids.secretA, body));
    expect(res.status).toBe(202);
    expect(await search({ q: 'nul-escape-case' })).toEqual([]);
    await fanOutPending(api.container);
    expect(await search({ q: 'nul-escape-case' })).toEqual([res.body.event_id]);
    expect(await search({ contains: '{"marker":"nul-escape-case"}' })).toEqual([]);
  });
});

describe('events search: bounded by RELAY_SEARCH_TIMEOUT_MS', () => {
  let api: TestApi;
  afterAll(() => api?.close());

  it('a search that runs past the timeout is canceled with a 400 search_too_broad, and the API goes on answering', async () => {
    api = await startTestApi({ RELAY_SEARCH_TIMEOUT_MS: '1' });
    const em = api.container.orm.em.fork();
    const ws = await createWorkspace(em);
    const token = await tokenFor(api.container, ws.user.id);
    const { endpoint } = await createEndpoint(api.container, em, ws.project);
    // Every row holds both words but never the text "abcd bcde": the index cannot narrow the
    // search, so PostgreSQL rechecks all 50,000 rows (far longer than 1 ms).
    await em.getConnection().execute(
      `insert into events (id, endpoint_id, project_id, organization_id, payload, headers, status)
       select gen_random_uuid(), ?, ?, ?, json_build_object('a', 'abcd', 'b', 'bcde', 'c', 'cdef', 'n', g), '{}'::json, 'filtered'
         from generate_series(1, 50000) g`,
      [endpoint.id, ws.project.id, ws.organization.id],
    );
    await fanOutPending(api.container);
    const res = await rest(api.baseUrl, 'GET', '/v1/events?q=abcd%20bcde', { token });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'search_too_broad', details: { timeout_ms: 1 } });
    expect((await rest(api.baseUrl, 'GET', '/v1/events?limit=1', { token })).status).toBe(200);
  });
});
