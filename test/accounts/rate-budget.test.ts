import { OrganizationMember } from '../../src/organizations/organization-member.entity';
import { gql, rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { createEndpoint, createWorkspace } from '../support/factories';

/**
 * The management rate budget's rule (src/rate-limit/management-rate-limit.ts), with the default
 * limit (600 units per credential and window): a request costs one unit for every started 50 page
 * rows it returned, at least one, over REST and GraphQL alike.
 */
describe('management API rate budget', () => {
  let api: TestApi;
  let projectId = '';
  const users: string[] = [];
  beforeAll(async () => {
    // The default limit; a window of an hour so that no test straddles a window boundary.
    api = await startTestApi({ RELAY_API_RATE_WINDOW_SECONDS: '3600' });
    const em = api.container.orm.em.fork();
    const ws = await createWorkspace(em);
    projectId = ws.project.id;
    const { endpoint } = await createEndpoint(api.container, em, ws.project);
    // 1,000 events: five full pages of 200.
    await em.getConnection().execute(
      `insert into events (id, endpoint_id, project_id, organization_id, payload, headers, status)
       select gen_random_uuid(), ?, ?, ?, json_build_object('n', g), '{}'::json, 'filtered' from generate_series(1, 1000) g`,
      [endpoint.id, ws.project.id, ws.organization.id],
    );
    // Each test spends its own users' budgets: members of the same organization.
    for (let i = 0; i < 4; i++) {
      const other = i === 0 ? ws : await createWorkspace(em);
      if (i > 0) em.create(OrganizationMember, { organization: ws.organization, user: other.user, role: 'owner' });
      await em.flush();
      users.push(await tokenFor(api.container, other.user.id));
    }
  });
  afterAll(() => api?.close());

  const remaining = (res: { headers: Headers }) => Number(res.headers.get('ratelimit-remaining'));

  it('weighs a list by the rows it returned, not by the limit it asked for, on both transports', async () => {
    const token = users[0];
    const opts = { token, projectId };
    const start = remaining(await rest(api.baseUrl, 'GET', '/v1/me', opts));
    // Lists asked for at 200 rows that hold none cost one unit each, batched or not.
    const empty = await gql(api.baseUrl, '{ destinations(limit: 200) { data { id } } templates(limit: 200) { data { id } } transforms(limit: 200) { data { id } } }', {}, opts);
    expect(empty.errors).toBeUndefined();
    const afterEmpty = remaining(await rest(api.baseUrl, 'GET', '/v1/destinations?limit=200', opts));
    expect(start - afterEmpty).toBe(2);
    // 200 rows: four units, REST and GraphQL alike; 120 rows: three; 10 rows: one.
    const charged = async (call: () => Promise<unknown>) => {
      const before = remaining(await rest(api.baseUrl, 'GET', '/v1/me', opts));
      await call();
      return before - remaining(await rest(api.baseUrl, 'GET', '/v1/me', opts)) - 1;
    };
    expect(await charged(() => rest(api.baseUrl, 'GET', '/v1/events?limit=200', opts))).toBe(4);
    expect(await charged(() => gql(api.baseUrl, '{ events(limit: 200) { data { id } } }', {}, opts))).toBe(4);
    expect(await charged(() => rest(api.baseUrl, 'GET', '/v1/events?limit=120', opts))).toBe(3);
    expect(await charged(() => gql(api.baseUrl, 'query ($n: Int!) { events(limit: $n) { data { id } } }', { n: 120 }, opts))).toBe(3);
    expect(await charged(() => gql(api.baseUrl, '{ events(limit: 10) { data { id } } }', {}, opts))).toBe(1);
  });

  it.each(['REST', 'GraphQL'])('stops a script paging through every event fast over %s: 150 pages of 200 rows a window, then 429', async (transport) => {
    const token = users[transport === 'REST' ? 1 : 2];
    const page = async (cursor: string | null) => {
      if (transport === 'REST') {
        const res = await rest(api.baseUrl, 'GET', `/v1/events?limit=200${cursor ? `&cursor=${cursor}` : ''}`, { token, projectId });
        return { status: res.status, rows: res.body.data?.length as number, next: res.body.next_cursor as string | null, body: res.body };
      }
      const res = await gql(api.baseUrl, 'query ($c: String) { events(limit: 200, cursor: $c) { data { id eventType } nextCursor } }', { c: cursor }, { token, projectId });
      return { status: res.status, rows: res.data?.events.data.length as number, next: res.data?.events.nextCursor as string | null, body: res };
    };
    let pages = 0;
    let cursor: string | null = null;
    let last: Awaited<ReturnType<typeof page>>;
    for (;;) {
      last = await page(cursor);
      if (last.status !== 200) break;
      expect(last.rows).toBe(200);
      pages += 1;
      cursor = last.next;
      if (pages > 400) break;
    }
    // 600 units: each 200-row page costs 4, so the 151st page is refused (30,000 rows a window).
    expect(pages).toBe(150);
    expect(last.status).toBe(429);
    expect(JSON.stringify(last.body)).toContain('rate_limited');
  }, 120_000);
});
