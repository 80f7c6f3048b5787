import { postSigned } from '../support/ingress-helpers';
import { type DashboardEnv, describeInBrowser, graphql, startDashboardEnv } from './browser';

const PASSWORD = 'correct horse battery staple';
const EVENTS = 200;

/** A viewer reads everything and is offered no write; the events list renders 200 rows (time printed, not asserted). */
describeInBrowser('dashboard as a viewer, with 200 events', () => {
  let env: DashboardEnv;
  let endpointId = '';
  const viewerEmail = `viewer-${Date.now()}@example.test`;

  beforeAll(async () => {
    env = await startDashboardEnv();
    const owner = await graphql(env.baseUrl, 'mutation ($i: SignupInput!) { signup(input: $i) { accessToken } }', {
      i: { email: `owner-${Date.now()}@example.test`, password: PASSWORD },
    });
    const token = owner.signup.accessToken as string;
    const { projects, organizations } = await graphql(env.baseUrl, '{ projects { data { id } } organizations { data { id } } }', {}, token);
    const created = await graphql(
      env.baseUrl,
      'mutation ($p: ID) { createEndpoint(projectId: $p, input: { name: "Billing", eventTypePath: "type" }) { id slug signingSecret } }',
      { p: projects.data[0].id },
      token,
    );
    endpointId = created.createEndpoint.id;
    // Free-plan ingress caps would answer 429 part-way through the burst below.
    await graphql(env.baseUrl, 'mutation ($o: ID!) { changePlan(organizationId: $o, plan: "team") { plan } }', { o: organizations.data[0].id }, token);
    for (let i = 0; i < EVENTS; i++) {
      const res = await postSigned(env.baseUrl, created.createEndpoint.slug, created.createEndpoint.signingSecret, { type: i % 2 ? 'invoice.paid' : 'invoice.created', n: i });
      expect(res.status).toBe(202);
    }
    const invite = await graphql(
      env.baseUrl,
      'mutation ($o: ID!, $e: String!) { createInvite(organizationId: $o, email: $e, role: "viewer") { token } }',
      { o: organizations.data[0].id, e: viewerEmail },
      token,
    );
    await graphql(env.baseUrl, 'mutation ($i: SignupInput!) { signup(input: $i) { accessToken } }', {
      i: { email: viewerEmail, password: PASSWORD, inviteToken: invite.createInvite.token },
    });
  }, 180_000);
  afterAll(() => env?.close());

  it('logs in as the viewer', async () => {
    const { page } = env;
    await page.goto('/');
    await page.getByLabel('Email').fill(viewerEmail);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    expect(await page.getByTestId('role').textContent()).toBe('viewer');
  });

  it(`renders ${EVENTS} rows in the events list`, async () => {
    const { page } = env;
    const rows = page.getByRole('table', { name: 'Events' }).getByRole('row');
    await rows.nth(50).waitFor();
    const started = await page.evaluate(() => performance.now());
    await page.getByLabel('Per page').selectOption(String(EVENTS));
    await rows.nth(EVENTS).waitFor();
    const ms = (await page.evaluate(() => performance.now())) - started;
    process.stdout.write(`events list: ${EVENTS} rows fetched and rendered in ${ms.toFixed(0)} ms (performance.now(), not asserted)\n`);
    expect(await rows.count()).toBe(EVENTS + 1);
    await env.screenshot('events-200');
  });

  it('shows no write button on any screen', async () => {
    const { page } = env;
    const writeButtons = /^(Test|New endpoint|Deactivate|Activate|Replay event|Replay selected.*|Replay|Cancel|Save|Rotate with overlap|Regenerate now|Link destination|Unlink|Add filter group|Delete)$/;
    const expectNoWrites = async () => expect(await page.getByRole('button', { name: writeButtons }).count()).toBe(0);

    await page.getByRole('table', { name: 'Events' }).getByRole('row').nth(1).click();
    await page.getByRole('heading', { name: /Event/ }).waitFor();
    await page.getByRole('heading', { name: 'Payload' }).waitFor();
    await expectNoWrites();

    await page.getByRole('link', { name: 'Endpoints' }).click();
    await page.getByRole('link', { name: 'Billing', exact: true }).click();
    await page.getByTestId('ingress-url').waitFor();
    await page.getByRole('table', { name: 'Recent events' }).getByRole('row').nth(1).waitFor();
    expect(page.url()).toContain(endpointId);
    await expectNoWrites();
    await env.screenshot('endpoint-viewer');

    await page.getByRole('link', { name: 'Endpoints' }).click();
    await page.getByRole('table', { name: 'Endpoints' }).waitFor();
    await expectNoWrites();

    await page.getByRole('link', { name: 'Dead letters' }).click();
    await page.getByText('The dead-letter queue is empty').waitFor();
    await expectNoWrites();
  });

  it('sent no request the viewer role is refused', () => {
    expect(env.refusals()).toEqual([]);
    expect(env.received.filter((r) => r.kind === 'http' && r.body.includes('"errors":[')).map((r) => r.body.slice(0, 200))).toEqual([]);
  });
});
