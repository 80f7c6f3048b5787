import type { Page } from 'playwright-core';
import { startReceiver, type Receiver } from '../delivery/receiver';
import { type DashboardEnv, describeInBrowser, graphql, logIn, signUpThroughApi, startDashboardEnv } from './browser';

const PASSWORD = 'correct horse battery staple';

/**
 * The Issues page (docs/alerts.md#issues) in a real browser against the service as a user starts it: the
 * empty state, a failing destination's issue reached from its health panel, the open count in the
 * navigation, acknowledge / retry affected deliveries / resolve, and the state filter.
 */
describeInBrowser('dashboard: issues', () => {
  let env: DashboardEnv;
  let receiver: Receiver;
  let token = '';
  let projectId = '';
  let endpointId = '';
  let destinationId = '';
  const email = `issues-${Date.now()}@example.test`;

  const gqlAsOwner = <T = any>(query: string, variables: Record<string, unknown> = {}) => graphql<T>(env.baseUrl, query, { p: projectId, ...variables }, token);
  const navLink = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Issues/ });
  const issuesTable = (page: Page) => page.getByRole('table', { name: 'Issues' });
  async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
    for (;;) {
      const value = await read();
      if (ok(value)) return value;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const issues = () => gqlAsOwner('query ($p: ID) { issues(projectId: $p) { data { id state eventCount resolvedBy } } }').then((r) => r.issues.data as Array<Record<string, any>>);

  beforeAll(async () => {
    receiver = await startReceiver();
    receiver.respond = () => ({ status: 503, body: 'receiver down' });
    env = await startDashboardEnv();
    token = await signUpThroughApi(env.baseUrl, email, PASSWORD);
    projectId = (await graphql(env.baseUrl, '{ projects { data { id } } }', {}, token)).projects.data[0].id;
    endpointId = (await gqlAsOwner('mutation ($p: ID) { createEndpoint(projectId: $p, input: { name: "Orders" }) { id } }')).createEndpoint.id;
  }, 180_000);
  afterAll(async () => {
    await env?.close();
    await receiver?.close();
  });

  it('explains what an issue is while there is none, and the navigation counts none', async () => {
    const { page } = env;
    await logIn(page, email, PASSWORD);
    await navLink(page).click();
    await page.getByRole('heading', { name: 'Issues' }).waitFor();
    await page.getByText('No issues yet').waitFor();
    await page.getByText(/the failures are grouped here by destination and cause/).waitFor();
    expect(await page.getByTestId('open-issues').count()).toBe(0);
    await env.screenshot('issues-empty');
  });

  it('a failing destination opens an issue, linked from its health panel and counted in the navigation', async () => {
    const { page } = env;
    const created = await gqlAsOwner(
      'mutation ($p: ID, $i: DestinationInput!) { createDestination(projectId: $p, input: $i) { id } }',
      { i: { name: 'Orders hook', type: 'webhook', webhookUrl: receiver.url, retryPolicy: { maxAttempts: 1, backoff: [1] } } },
    );
    destinationId = created.createDestination.id;
    await gqlAsOwner('mutation ($p: ID, $e: ID!, $d: ID) { createLink(projectId: $p, endpointId: $e, input: { destinationId: $d }) { destinationId } }', { e: endpointId, d: destinationId });
    for (let i = 0; i < 2; i++) await gqlAsOwner('mutation ($p: ID, $e: ID!) { sendTestEvent(projectId: $p, endpointId: $e) { eventId } }', { e: endpointId });
    await eventually(issues, (list) => list.length === 1 && list[0].eventCount === 2);

    await page.goto(`/destinations/${destinationId}`);
    const link = page.getByTestId('health').getByTestId('destination-issues');
    await link.getByText('1 open').waitFor();
    await navLink(page).getByTestId('open-issues').getByText('1').waitFor();
    await env.screenshot('destination-issues');
    await link.click();
    await page.getByTestId('destination-filter').getByRole('link', { name: 'Orders hook' }).waitFor();
    const row = issuesTable(page).getByRole('row').filter({ hasText: 'Orders hook' });
    await row.getByText('HTTP 5xx').waitFor();
    await row.getByText('open', { exact: true }).waitFor();
    // Failures, then affected events.
    expect(await row.locator('td.num').allTextContents()).toEqual(['2', '2']);
    await env.screenshot('issues');
  });

  it('acknowledging takes it off the count; retrying its affected deliveries delivers them; resolving closes it', async () => {
    const { page } = env;
    const row = issuesTable(page).getByRole('row').filter({ hasText: 'Orders hook' });
    await row.getByRole('button', { name: 'Acknowledge' }).click();
    await row.getByText('acknowledged', { exact: true }).waitFor();
    await navLink(page).getByTestId('open-issues').waitFor({ state: 'detached' });

    receiver.respond = () => ({ status: 200, body: 'ok' });
    const before = receiver.requests.length;
    await row.getByRole('button', { name: 'Retry affected deliveries…' }).click();
    const panel = page.getByTestId('bulk-panel');
    await panel.getByTestId('bulk-count').getByText(/^2 affected deliveries to Orders hook match/).waitFor();
    await panel.getByRole('button', { name: 'Retry 2 affected deliveries to Orders hook' }).click();
    await panel.getByTestId('bulk-progress').getByText('Done: 2 of 2 retried').waitFor({ timeout: 60_000 });
    await eventually(async () => receiver.requests.length, (n) => n >= before + 2);
    await panel.getByRole('button', { name: 'Close' }).click();

    await row.getByRole('button', { name: 'Resolve' }).click();
    await row.getByText('resolved', { exact: true }).waitFor();
    expect((await issues())[0]).toMatchObject({ state: 'resolved', resolvedBy: 'user' });

    // The state filter: nothing open any more, the resolved one under "resolved".
    await page.getByRole('combobox', { name: 'State' }).selectOption('open');
    await page.getByText('No issues match').waitFor();
    await page.getByRole('combobox', { name: 'State' }).selectOption('resolved');
    await issuesTable(page).getByRole('row').filter({ hasText: 'Orders hook' }).waitFor();

    // Its own page (where an operational event's dashboard_url leads).
    await issuesTable(page).getByRole('link', { name: 'HTTP 5xx' }).click();
    await page.getByRole('heading', { name: 'Issues / Orders hook · HTTP 5xx' }).waitFor();
    expect(page.url()).toContain(`/issues/${(await issues())[0].id}`);
    await issuesTable(page).getByText('resolved', { exact: true }).waitFor();
  });

  it("an operational event's dashboard_url opens its issue in its project, whichever project was open", async () => {
    const { page } = env;
    const organizationId = (await gqlAsOwner('{ organizations { data { id } } }')).organizations.data[0].id;
    await gqlAsOwner('mutation ($o: ID!) { createProject(organizationId: $o, input: { name: "Staging" }) { id } }', { o: organizationId });
    await page.reload();
    await page.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'Staging' });
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    await navLink(page).click();
    await page.getByText('No issues yet').waitFor();

    const [{ id }] = await issues();
    const url = new URL(`/issues/${id}?project=${projectId}`, env.baseUrl);
    await page.goto(url.pathname + url.search);
    await page.getByRole('heading', { name: 'Issues / Orders hook · HTTP 5xx' }).waitFor();
    expect(await page.getByRole('combobox', { name: 'Project' }).inputValue()).toBe(projectId);
  });

  it('a viewer sees the issues and the open count, with no action, and is refused nothing', async () => {
    const organizationId = (await gqlAsOwner('{ organizations { data { id } } }')).organizations.data[0].id;
    const viewerEmail = `viewer-${Date.now()}@example.test`;
    const invite = await gqlAsOwner('mutation ($o: ID!, $e: String!) { createInvite(organizationId: $o, email: $e, role: "viewer") { token } }', { o: organizationId, e: viewerEmail });
    await graphql(env.baseUrl, 'mutation ($i: SignupInput!) { signup(input: $i) { accessToken } }', { i: { email: viewerEmail, password: PASSWORD, inviteToken: invite.createInvite.token } });
    // A new open issue: the receiver fails again.
    receiver.respond = () => ({ status: 404, body: 'no such hook' });
    await gqlAsOwner('mutation ($p: ID, $e: ID!) { sendTestEvent(projectId: $p, endpointId: $e) { eventId } }', { e: endpointId });
    await eventually(issues, (list) => list.some((i) => i.state === 'open'));

    const context = await env.browser.newContext({ baseURL: env.baseUrl, viewport: { width: 1280, height: 800 } });
    const answers: Promise<string>[] = [];
    context.on('response', (r) => void (r.url().endsWith('/graphql') && answers.push(r.text().catch(() => ''))));
    try {
      const page = await context.newPage();
      await logIn(page, viewerEmail, PASSWORD);
      await page.getByRole('combobox', { name: 'Project' }).selectOption(projectId);
      await navLink(page).getByTestId('open-issues').getByText('1').waitFor();
      await navLink(page).click();
      const rows = issuesTable(page).getByRole('row');
      await rows.filter({ hasText: 'HTTP 4xx' }).getByText('open', { exact: true }).waitFor();
      await rows.filter({ hasText: 'HTTP 5xx' }).getByText('resolved', { exact: true }).waitFor();
      expect(await issuesTable(page).getByRole('button').count()).toBe(0);
      await page.waitForLoadState('networkidle').catch(() => undefined);
      expect((await Promise.all(answers)).filter((body) => body.includes('"errors"'))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('counts one affected delivery as one: "1 affected delivery to Orders hook matches"', async () => {
    const { page } = env;
    // The 4xx issue of the test above: one event, one delivery.
    await page.goto(`/issues?state=open&project=${projectId}`);
    const row = issuesTable(page).getByRole('row').filter({ hasText: 'HTTP 4xx' });
    await row.getByRole('button', { name: 'Retry affected deliveries…' }).click();
    const panel = page.getByTestId('bulk-panel');
    await panel.getByTestId('bulk-count').getByText(/^1 affected delivery to Orders hook matches/).waitFor();
    await panel.getByRole('button', { name: 'Retry 1 affected delivery to Orders hook' }).waitFor();
    await panel.getByRole('button', { name: 'Close' }).click();
  });
});
