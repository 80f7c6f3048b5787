import { createHmac } from 'node:crypto';
import { clone, examplesOf } from '../schemas/corpus';
import { type DashboardEnv, describeInBrowser, graphql, logIn, signUpThroughApi, startDashboardEnv } from './browser';

const PASSWORD = 'correct horse battery staple';

/**
 * A source's event types and inferred schemas on its page (docs/schemas.md), in a real browser against the
 * service as a user starts it: the empty state, then real codehost_a payloads learned into a schema shown
 * with its paths, an example and a change in its drift history, accepted with a click; the silence setting.
 */
describeInBrowser('dashboard: event types and schemas on the source page', () => {
  let env: DashboardEnv;
  let token = '';
  let projectId = '';
  let source: { id: string; slug: string; signingSecret: string };
  const email = `schemas-${Date.now()}@example.test`;

  const gqlAsOwner = <T = any>(query: string, variables: Record<string, unknown> = {}) => graphql<T>(env.baseUrl, query, { p: projectId, ...variables }, token);
  async function post(type: string, payload: unknown): Promise<void> {
    const body = JSON.stringify(payload);
    const res = await fetch(`${env.baseUrl}/hooks/${source.slug}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-codehosta-event': type, 'x-hub-signature-256': `sha256=${createHmac('sha256', source.signingSecret).update(body).digest('hex')}` },
      body,
    });
    if (res.status !== 202) throw new Error(`ingress answered ${res.status}`);
  }
  async function learned(count: number): Promise<void> {
    for (;;) {
      const { sourceSchemas } = await gqlAsOwner('query ($p: ID, $e: ID!) { sourceSchemas(projectId: $p, endpointId: $e) { activity { eventCount } } }', { e: source.id });
      if (sourceSchemas.activity.eventCount >= count) return;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  beforeAll(async () => {
    env = await startDashboardEnv();
    token = await signUpThroughApi(env.baseUrl, email, PASSWORD);
    projectId = (await graphql(env.baseUrl, '{ projects { data { id } } }', {}, token)).projects.data[0].id;
    source = (await gqlAsOwner('mutation ($p: ID) { createEndpoint(projectId: $p, input: { name: "GitHub", provider: "codehost_a" }) { id slug signingSecret } }')).createEndpoint;
  }, 180_000);
  afterAll(async () => {
    await env?.close();
  });

  it('says what the section is while nothing is learned', async () => {
    const { page } = env;
    await logIn(page, email, PASSWORD);
    await page.goto(`/endpoints/${source.id}`);
    await page.getByRole('heading', { name: 'Event types and schemas' }).waitFor();
    await page.getByText('No event types learned yet').waitFor();
    await page.getByText(/learning when events usually come/).waitFor();
  });

  it('shows each event type with its counts, paths, an example and its drift history; a change is accepted with a click', async () => {
    const { page } = env;
    for (const payload of examplesOf('issues')) await post('issues', payload);
    for (const payload of examplesOf('push')) await post('push', payload);
    const retyped = clone(examplesOf('issues')[3]);
    retyped.issue.number = String(retyped.issue.number);
    await post('issues', retyped);
    await learned(37);

    await page.reload();
    const types = page.getByRole('table', { name: 'Event types' });
    const issues = types.getByRole('row').filter({ hasText: 'issues' });
    await issues.getByText('1 to review').waitFor();
    expect(await issues.locator('td.num').allTextContents()).toEqual(['30', '30', expect.stringMatching(/^\d+$/)]);
    await types.getByRole('row').filter({ hasText: 'push' }).getByText('learning 7/20').waitFor();
    await issues.getByRole('button', { name: 'issues' }).click();

    const detail = page.getByTestId('schema-detail');
    const number = detail.getByRole('table', { name: 'Paths of issues' }).getByRole('row').filter({ has: page.getByRole('cell', { name: 'issue.number', exact: true }) });
    await number.getByText('integer 29 · string 1').waitFor();
    await number.getByText('always').waitFor();
    const changes = detail.getByRole('table', { name: 'Changes of issues' });
    await changes.getByText(/retyped: issue\.number integer → string/).waitFor();
    await changes.getByRole('link', { name: 'issue' }).waitFor();
    await detail.getByRole('link', { name: 'the most frequent shape' }).waitFor();
    await env.screenshot('source-schemas');

    await detail.getByRole('button', { name: 'Accept changes' }).click();
    await detail.getByRole('button', { name: 'Accept changes' }).waitFor({ state: 'detached' });
    await issues.getByText('1 to review').waitFor({ state: 'detached' });
    await number.getByText('string 1').waitFor();
    const { issues: list } = await gqlAsOwner('query ($p: ID, $e: ID) { issues(projectId: $p, endpointId: $e) { data { cause state eventType } } }', { e: source.id });
    expect(list.data).toEqual([{ cause: 'schema_changed', state: 'resolved', eventType: 'issues' }]);
  });

  it('sets the silence expectation: at least one event every 6 hours', async () => {
    const { page } = env;
    const form = page.getByRole('form', { name: 'Schema and silence alerts' });
    await form.getByRole('combobox', { name: 'Silence' }).selectOption('expected_interval');
    await form.getByRole('spinbutton', { name: 'Hours' }).fill('6');
    await form.getByRole('button', { name: 'Save alerts' }).click();
    await form.getByText('Saved.').waitFor();
    await page.getByTestId('source-watch').getByText('alerts after 6 h without an event (expected interval)').waitFor();
    const { endpoint } = await gqlAsOwner('query ($p: ID, $e: ID!) { endpoint(projectId: $p, id: $e) { silenceAlerts expectedIntervalSeconds } }', { e: source.id });
    expect(endpoint).toEqual({ silenceAlerts: 'expected_interval', expectedIntervalSeconds: 21600 });
  });
});
