import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DashboardEnv, describeInBrowser, graphql, startDashboardEnv } from './browser';

const PASSWORD = 'correct horse battery staple';

/** A webhook receiver that holds each request until the test opens the gate, so the page is seen updating live. */
async function gatedReceiver() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let received = 0;
  const server = http.createServer((req, res) => {
    received++;
    req.resume();
    void gate.then(() => res.writeHead(200, { 'content-type': 'text/plain', 'x-receiver': 'story' }).end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => received,
    release: () => open(),
    close: () => {
      open();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The story of issue 10, in a real browser against the service as a user starts it. */
describeInBrowser('dashboard: sign up, endpoint, destination, link, Test, live event, attempt 200', () => {
  let env: DashboardEnv;
  let receiver: Awaited<ReturnType<typeof gatedReceiver>>;
  const email = `owner-${Date.now()}@example.test`;
  let signingSecret = '';
  let eventId = '';
  /** A page in the side navigation, by its exact label: pages also link to each other (`Open Orders →`, an event's source). */
  const navLink = (name: string) => env.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });

  beforeAll(async () => {
    receiver = await gatedReceiver();
    env = await startDashboardEnv();
  }, 120_000);
  afterAll(async () => {
    await env?.close();
    await receiver?.close();
  });

  it('signs up and lands on Get started; the events list is empty', async () => {
    const { page } = env;
    await page.goto('/');
    await page.getByRole('heading', { name: 'Log in to relay' }).waitFor();
    await env.screenshot('sign-in');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByLabel('Name (optional)').fill('Olivia Owner');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('heading', { name: 'Get started' }).waitFor();
    await navLink('Events').click();
    await page.getByText('No events yet').waitFor();
    expect(await page.getByTestId('role').textContent()).toBe('owner');
  });

  it('creates an endpoint and shows its signing secret once', async () => {
    const { page } = env;
    await navLink('Endpoints').click();
    await page.getByRole('button', { name: 'New endpoint' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Orders');
    // A bad slug: the API's message appears under the field.
    await page.getByLabel('Slug (optional)').fill('Not A Slug!');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const slugField = page.locator('label.field', { has: page.getByLabel('Slug (optional)') });
    await slugField.locator('.field-error').waitFor();
    await page.getByLabel('Slug (optional)').fill('');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    signingSecret = (await page.getByTestId('secret-value').textContent()) ?? '';
    expect(signingSecret).toMatch(/^whsec_/);
    await env.screenshot('endpoint-created');
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('link', { name: 'Open Orders →' }).click();
    await page.getByTestId('ingress-url').waitFor();
  });

  it('links a webhook destination (created through the API) to the endpoint', async () => {
    const { page } = env;
    // The destinations screen is built elsewhere; the destination comes from the same GraphQL API.
    const session = await graphql(env.baseUrl, 'mutation ($e: String!, $p: String!) { login(email: $e, password: $p) { accessToken } }', { e: email, p: PASSWORD });
    const token = session.login.accessToken as string;
    const { projects } = await graphql(env.baseUrl, '{ projects { data { id } } }', {}, token);
    await graphql(
      env.baseUrl,
      'mutation ($p: ID, $i: DestinationInput!) { createDestination(projectId: $p, input: $i) { id } }',
      { p: projects.data[0].id, i: { name: 'Local receiver', type: 'webhook', webhookUrl: `${receiver.url}/orders` } },
      token,
    );
    await page.reload();
    const form = page.getByRole('form', { name: 'Link a destination' });
    await form.getByRole('button', { name: 'Link destination' }).click();
    await page.getByRole('table', { name: 'Linked destinations' }).getByText('Local receiver').waitFor();
  });

  it('Test sends an event that appears in the live events list of another tab without a reload', async () => {
    const events = await env.context.newPage();
    let loads = 0;
    events.on('load', () => loads++);
    await events.goto('/events');
    await events.getByText('No events yet').waitFor();

    await env.page.getByRole('button', { name: 'Test', exact: true }).click();
    const sent = env.page.getByTestId('test-sent');
    await sent.waitFor();
    eventId = (await sent.getByRole('link').textContent()) ?? '';
    expect(eventId).toMatch(/^[0-9a-f-]{36}$/);
    // The endpoint page's own live list shows it too.
    await env.page.getByRole('table', { name: 'Recent events' }).getByTitle(eventId).waitFor();
    await env.screenshot('endpoint');

    const row = events.getByRole('table', { name: 'Events' }).getByRole('row').filter({ has: events.locator(`a[href="/events/${eventId}"]`) });
    await row.waitFor();
    expect(loads).toBe(1);
    await env.screenshot('events', events);

    await row.click();
    await events.getByRole('heading', { name: /Event/ }).waitFor();
    await events.getByTestId('delivery').waitFor();
    // The receiver holds the request: no answer yet. Then it answers, and the attempt turns 200 on the open page.
    expect(await events.getByTestId('status-code').filter({ hasText: '200' }).count()).toBe(0);
    receiver.release();
    await events.getByTestId('status-code').filter({ hasText: '200' }).waitFor({ timeout: 30_000 });
    expect(await events.getByTestId('delivery').getByText('delivered').count()).toBeGreaterThan(0);
    expect(loads).toBe(1);
    expect(receiver.received()).toBe(1);
    await env.screenshot('event', events);
    await events.close();
  });

  it('the other screens render: dead letters, endpoints, and the events list at phone width', async () => {
    const { page } = env;
    await navLink('Dead letters').click();
    await page.getByText('The dead-letter queue is empty').waitFor();
    await env.screenshot('dead-letters');
    await navLink('Endpoints').click();
    await page.getByRole('table', { name: 'Endpoints' }).getByRole('link', { name: 'Orders', exact: true }).waitFor();
    await env.screenshot('endpoints');
    await page.setViewportSize({ width: 390, height: 800 });
    await page.getByRole('button', { name: 'Menu' }).click();
    await navLink('Events').click();
    // The event id column is hidden at phone width; the row is there.
    await page.getByRole('table', { name: 'Events' }).getByRole('row').filter({ hasText: 'received' }).first().waitFor();
    await env.screenshot('events-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('never received a secret it should not see, nor a refusal', async () => {
    const refreshTokens = env.received
      .filter((r) => r.operation === 'Signup' || r.operation === 'Refresh' || r.operation === 'Login')
      .map((r) => /"refreshToken":"([^"]+)"/.exec(r.body)?.[1])
      .filter((t): t is string => !!t);
    expect(refreshTokens.length).toBeGreaterThan(0);
    // A refresh token only in the answer that issued it; the signing secret only in the answer that generated it; the password never.
    env.expectNotReceived(refreshTokens, (r) => ['Signup', 'Refresh', 'Login'].includes(r.operation ?? '') && refreshTokens.some((t) => r.body.includes(t)) && (r.body.match(/"refreshToken":"/g) ?? []).length === 1);
    env.expectNotReceived([signingSecret], (r) => r.operation === 'CreateEndpoint');
    env.expectNotReceived([PASSWORD]);
    expect(env.received.filter((r) => r.operation === 'CreateEndpoint' && r.body.includes(signingSecret))).toHaveLength(1);
    expect(env.refusals()).toEqual([]);
    // Nor any other error than the deliberate bad slug: every request the screens sent was one the API accepts.
    const errors = env.received.filter((r) => r.kind === 'http' && (r.status! >= 400 || r.body.includes('"errors":[')));
    expect(errors.map((r) => `${r.operation ?? r.url}: ${r.body.slice(0, 200)}`)).toEqual([expect.stringMatching(/^CreateEndpoint: .*"code":"invalid_input"/)]);
  });
});
