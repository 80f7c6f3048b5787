import { Client } from 'pg';
import { type DashboardEnv, describeInBrowser, graphql, logIn, signUpThroughApi, startDashboardEnv } from './browser';

const PASSWORD = 'correct horse battery staple';
const ENDPOINTS = 4;
const ROUNDS = 6;

/**
 * The management rate budget from the dashboard's side (issue 18): a user who opens and reloads
 * endpoint pages and the Events list as people do is never throttled by the default
 * RELAY_API_RATE_LIMIT (600). The window is an hour here instead of a minute, so every page load
 * of the run counts against the same 600 units, however long the machine takes.
 */
describeInBrowser('dashboard: a realistic minute of browsing stays within the default rate budget', () => {
  let env: DashboardEnv;
  let token = '';
  let projectId = '';
  const endpointIds: string[] = [];
  const email = `budget-${Date.now()}@example.test`;

  const gql = <T = any>(query: string, variables: Record<string, unknown> = {}) => graphql<T>(env.baseUrl, query, { p: projectId, ...variables }, token);

  beforeAll(async () => {
    env = await startDashboardEnv({ env: { RELAY_API_RATE_WINDOW_SECONDS: '3600' } });
    token = await signUpThroughApi(env.baseUrl, email, PASSWORD);
    projectId = (await graphql(env.baseUrl, '{ projects { data { id } } }', {}, token)).projects.data[0].id;
    const destination = (await gql('mutation ($p: ID) { createDestination(projectId: $p, input: { name: "Receiver", type: "webhook", webhookUrl: "http://127.0.0.1:9/hook" }) { id } }')).createDestination.id;
    await gql('mutation ($p: ID) { createTemplate(projectId: $p, input: { name: "Pushes", config: { title: "{{ .Payload.action }}" } }) { id } }');
    await gql('mutation ($p: ID) { createTransform(projectId: $p, input: { name: "Trim", expression: "$" }) { id } }');
    for (let i = 0; i < ENDPOINTS; i++) {
      const id = (await gql('mutation ($p: ID, $n: String!) { createEndpoint(projectId: $p, input: { name: $n }) { id } }', { n: `Endpoint ${i}` })).createEndpoint.id as string;
      await gql('mutation ($p: ID, $e: ID!, $d: ID!) { createLink(projectId: $p, endpointId: $e, input: { destinationId: $d }) { id } }', { e: id, d: destination });
      await gql('mutation ($p: ID, $e: ID!) { createFilterGroup(projectId: $p, endpointId: $e, input: { name: "Pushes", logic: "AND", conditions: [{ field: "body.action", operator: "exists", value: "" }] }) { id } }', { e: id });
      endpointIds.push(id);
    }
    // 300 stored events, so the Events list and each endpoint's recent events are full pages.
    const db = new Client({ connectionString: env.databaseUrl });
    await db.connect();
    try {
      await db.query(
        `insert into events (id, endpoint_id, project_id, organization_id, event_type, payload, headers, status)
         select gen_random_uuid(), ep.id, ep.project_id, p.organization_id, 'push', json_build_object('n', g), '{}'::json, 'filtered'
           from webhook_endpoints ep join projects p on p.id = ep.project_id, generate_series(1, 75) g where ep.project_id = $1`,
        [projectId],
      );
    } finally {
      await db.end();
    }
    await logIn(env.page, email, PASSWORD);
  }, 180_000);
  afterAll(() => env?.close(), 120_000);

  it(`opens and reloads ${ENDPOINTS} endpoint pages and the Events list ${ROUNDS} times over, and is never refused`, async () => {
    const { page } = env;
    const started = Date.now();
    let loads = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const id of endpointIds) {
        await page.goto(`/endpoints/${id}`);
        await page.getByRole('table', { name: 'Recent events' }).getByRole('row').nth(10).waitFor();
        await page.getByText('Receiver').first().waitFor();
        loads += 1;
      }
      await page.reload();
      await page.getByRole('table', { name: 'Recent events' }).getByRole('row').nth(10).waitFor();
      await page.goto('/events');
      await page.getByRole('table', { name: 'Events' }).getByRole('row').nth(50).waitFor();
      await page.reload();
      await page.getByRole('table', { name: 'Events' }).getByRole('row').nth(50).waitFor();
      loads += 3;
    }
    const refused = env.received.filter((r) => r.kind === 'http' && (r.status === 429 || r.body.includes('"rate_limited"')));
    // The same user's budget, read through the API (this request costs one unit of it).
    const last = (await fetch(`${env.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${token}` } })).headers.get('ratelimit-remaining');
    const operations = new Map<string, number>();
    for (const r of env.received) if (r.kind === 'http' && r.url.endsWith('/graphql')) operations.set(r.operation ?? '?', (operations.get(r.operation ?? '?') ?? 0) + 1);
    process.stdout.write(
      `rate budget: ${loads} page loads in ${((Date.now() - started) / 1000).toFixed(1)} s; API units left of 600: ${last}; GraphQL requests: ${JSON.stringify(Object.fromEntries(operations))}\n`,
    );
    expect(refused.map((r) => `${r.operation ?? r.url} ${r.status}`)).toEqual([]);
  }, 300_000);
});
