import type { Page } from 'playwright-core';
import { startReceiver, type Receiver } from '../delivery/receiver';
import { type DashboardEnv, describeInBrowser, graphql, startDashboardEnv } from './browser';

const PASSWORD = 'correct horse battery staple';

/**
 * Issue 18.1 in a real browser: the Events list shows each event's outcome with its last
 * response code, filters by outcome, destination, response class, type prefix and time,
 * keeps every filter in the URL (deep link, reload), and updates a row's outcome live.
 * Issue 27.6: the outcome words are the shared ones, and the response code shown is that of
 * the delivery the outcome comes from, saying whose it is.
 */
describeInBrowser('dashboard events list: outcomes, filters in the URL, live outcome', () => {
  let env: DashboardEnv;
  let receiver: Receiver;
  let token = '';
  let projectId = '';
  const ids: Record<string, string> = {};
  const email = `owner-${Date.now()}@example.test`;
  const gqlAsOwner = <T = any>(query: string, variables: Record<string, unknown> = {}) => graphql<T>(env.baseUrl, query, { p: projectId, ...variables }, token);
  const sendTest = async (endpointId: string) =>
    (await gqlAsOwner('mutation ($p: ID, $e: ID!) { sendTestEvent(projectId: $p, endpointId: $e) { eventId } }', { e: endpointId })).sendTestEvent.eventId as string;
  const rowOf = (page: Page, eventId: string) => page.getByRole('table', { name: 'Events' }).getByRole('row').filter({ hasText: eventId });

  beforeAll(async () => {
    receiver = await startReceiver();
    receiver.respond = (req) => (req.path.endsWith('/bad') ? { status: 503, body: 'down' } : { status: 200, body: 'ok' });
    env = await startDashboardEnv();
    token = (await graphql(env.baseUrl, 'mutation ($i: SignupInput!) { signup(input: $i) { accessToken } }', { i: { email, password: PASSWORD } })).signup.accessToken;
    projectId = (await graphql(env.baseUrl, '{ projects { data { id } } }', {}, token)).projects.data[0].id;
    const endpoint = async (name: string) => (await gqlAsOwner('mutation ($p: ID, $n: String!) { createEndpoint(projectId: $p, input: { name: $n }) { id } }', { n: name })).createEndpoint.id as string;
    const destination = async (name: string, url: string) =>
      (
        await gqlAsOwner('mutation ($p: ID, $i: DestinationInput!) { createDestination(projectId: $p, input: $i) { id } }', {
          i: { name, type: 'webhook', webhookUrl: url, retryPolicy: { maxAttempts: 1, backoff: [1] } },
        })
      ).createDestination.id as string;
    ids.orders = await endpoint('Orders');
    ids.billing = await endpoint('Billing');
    ids.both = await endpoint('Both');
    ids.good = await destination('Good receiver', `${receiver.url}/ok`);
    ids.bad = await destination('Broken receiver', `${receiver.url}/bad`);
    const link = (e: string, d: string) => gqlAsOwner('mutation ($p: ID, $e: ID!, $d: ID) { createLink(projectId: $p, endpointId: $e, input: { destinationId: $d }) { destinationId } }', { e, d });
    await link(ids.orders, ids.good);
    await link(ids.billing, ids.bad);
    await link(ids.both, ids.good);
    await link(ids.both, ids.bad);
  }, 180_000);
  afterAll(async () => {
    await env?.close();
    await receiver?.close();
  });

  it("shows each event's outcome and the response code of the delivery it comes from, saying whose", async () => {
    const { page } = env;
    ids.delivered = await sendTest(ids.orders);
    ids.dead = await sendTest(ids.billing);
    ids.mixed = await sendTest(ids.both);
    await page.goto('/');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    await rowOf(page, ids.delivered).getByText('delivered').waitFor({ timeout: 30_000 });
    await rowOf(page, ids.dead).getByText('dead-lettered').waitFor({ timeout: 30_000 });
    expect(await rowOf(page, ids.delivered).getByRole('cell').nth(4).textContent()).toBe('200 from Good receiver');
    expect(await rowOf(page, ids.dead).getByRole('cell').nth(4).textContent()).toBe('503 from Broken receiver');
    // Delivered to one, dead-lettered at the other: the row says so, whichever answered last.
    await rowOf(page, ids.mixed).getByText('dead-lettered').waitFor({ timeout: 30_000 });
    expect(await rowOf(page, ids.mixed).getByRole('cell').nth(4).textContent()).toBe('503 from Broken receiver (+1 other)');
    await env.screenshot('events-outcomes');

    // The event page: the same word and response in its summary (no ingress "status"), and each delivery in the same words.
    await rowOf(page, ids.mixed).click();
    const summary = page.getByTestId('event-outcome');
    await summary.getByText('dead-lettered').waitFor();
    expect(await summary.textContent()).toBe('dead-lettered 503 from Broken receiver (+1 other)');
    expect(await page.getByText('status', { exact: true }).count()).toBe(0);
    const deliveries = page.getByTestId('delivery');
    await deliveries.filter({ hasText: 'Good receiver' }).locator('[data-outcome=delivered]').first().waitFor();
    await deliveries.filter({ hasText: 'Broken receiver' }).locator('[data-outcome=dead_lettered]').waitFor();
    await env.screenshot('event-outcome');
    await page.goBack();
  });

  it('filters by outcome and response class into the URL; a reload and a deep link keep the view', async () => {
    const { page } = env;
    await page.getByRole('combobox', { name: 'Outcome' }).selectOption('dead_lettered');
    await page.waitForURL(/outcome=dead_lettered/);
    await rowOf(page, ids.delivered).waitFor({ state: 'detached' });
    await rowOf(page, ids.dead).waitFor();
    await page.reload();
    await rowOf(page, ids.dead).waitFor();
    expect(await rowOf(page, ids.delivered).count()).toBe(0);
    expect(await page.getByRole('combobox', { name: 'Outcome' }).inputValue()).toBe('dead_lettered');

    // A deep link: good destination, 2xx, type prefix (the Test event's type), since an hour ago.
    const since = new Date(Date.now() - 3600_000).toISOString();
    await page.goto(`/events?destination=${ids.good}&code=2xx&type=relay.&after=${encodeURIComponent(since)}`);
    await rowOf(page, ids.delivered).waitFor();
    expect(await rowOf(page, ids.dead).count()).toBe(0);
    expect(await page.getByRole('combobox', { name: 'Destination' }).inputValue()).toBe(ids.good);
    expect(await page.getByRole('combobox', { name: 'Response' }).inputValue()).toBe('2xx');
    expect(await page.getByLabel('Event type').inputValue()).toBe('relay.');
    await env.screenshot('events-filtered');
    await page.goto(`/events?code=5xx`);
    await rowOf(page, ids.dead).waitFor();
    expect(await rowOf(page, ids.delivered).count()).toBe(0);
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.waitForURL((url) => url.search === '');
    await rowOf(page, ids.delivered).waitFor();
  });

  it('a new event arrives live and its outcome turns to delivered without a reload', async () => {
    const { page } = env;
    const id = await sendTest(ids.orders);
    await rowOf(page, id).waitFor({ timeout: 15_000 });
    await rowOf(page, id).getByText('delivered').waitFor({ timeout: 30_000 });
    expect(await rowOf(page, id).getByRole('cell').nth(4).textContent()).toBe('200 from Good receiver');
  });

  it('health: the destinations list and page show success rate, failing since, linked endpoints and recent deliveries', async () => {
    const { page } = env;
    await page.goto('/destinations');
    const broken = page.getByRole('table').getByRole('row').filter({ hasText: 'Broken receiver' });
    await broken.getByText('failing').waitFor();
    expect(await broken.getByRole('cell').nth(4).textContent()).toBe('0.0%');
    const good = page.getByRole('table').getByRole('row').filter({ hasText: 'Good receiver' });
    await good.getByText('healthy').waitFor();
    expect(await good.getByRole('cell').nth(4).textContent()).toBe('100%');
    await env.screenshot('destinations-health');
    await page.reload();
    await broken.getByRole('link', { name: 'Broken receiver' }).click();
    const health = page.getByTestId('health');
    await health.getByText('HTTP 503').waitFor();
    await health.getByText('failing since').waitFor();
    await page.getByRole('region', { name: 'Linked endpoints' }).getByRole('link', { name: 'Billing' }).waitFor();
    await page.getByRole('table', { name: 'Recent deliveries' }).getByText(ids.dead).waitFor();
    await env.screenshot('destination-health');
    await page.goto('/endpoints');
    await page.getByRole('table').getByRole('row').filter({ hasText: 'Orders' }).getByText('healthy').waitFor();
  });

  it('bulk retry: the count first, a double click retries once, progress, then the outcome turns delivered', async () => {
    const { page } = env;
    receiver.respond = () => ({ status: 200, body: 'ok' });
    const before = receiver.requests.filter((r) => r.path.endsWith('/bad')).length;
    await page.goto(`/events?outcome=dead_lettered&endpoint=${ids.billing}`);
    await rowOf(page, ids.dead).waitFor();
    await page.getByRole('button', { name: 'Retry matching deliveries…' }).click();
    await page.getByTestId('bulk-count').getByText('1 failed deliveries match').waitFor();
    await env.screenshot('bulk-retry-count');
    await page.getByRole('button', { name: 'Retry 1 failed deliveries' }).dblclick();
    await page.getByTestId('bulk-progress').getByText('Done: 1 of 1 retried').waitFor({ timeout: 30_000 });
    await env.screenshot('bulk-retry-done');
    await page.goto('/events');
    await rowOf(page, ids.dead).getByText('delivered').waitFor({ timeout: 30_000 });
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.requests.filter((r) => r.path.endsWith('/bad')).length).toBe(before + 1);
  });
});
