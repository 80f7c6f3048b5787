import type { Page } from 'playwright-core';
import { startReceiver, type Receiver } from '../delivery/receiver';
import { type DashboardEnv, describeInBrowser, graphql, startDashboardEnv } from './browser';

const PASSWORD = 'correct horse battery staple';

/** What the tests read of an element in the page (this file has no DOM types). */
interface Overflowing {
  scrollWidth: number;
  clientWidth: number;
  scrollHeight: number;
  clientHeight: number;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { toJSON(): { left: number; right: number } };
}

/**
 * Issue 18.1 in a real browser: the Events list shows each event's outcome with its last
 * response code, filters by outcome, destination, response class, type prefix and time,
 * keeps every filter in the URL (deep link, reload), and updates a row's outcome live.
 * Issue 27.6: the outcome words are the shared ones, and the response code shown is that of
 * the delivery the outcome comes from, saying whose it is.
 * Issue 37: rows are links (a new tab, the keyboard); each delivery links to its workflow in the Temporal UI (the run's
 * dev server, whose UI the service knows through TEMPORAL_UI_URL); a delivered delivery offers "Send again", not a
 * retry; counts in the right number; a destination with an open issue is not "healthy"; the latency chart's names and
 * the Event id columns fit their space.
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
  // A row is a link to its event (its id is shown shortened).
  const rowOf = (page: Page, eventId: string) => page.getByRole('table', { name: 'Events' }).getByRole('row').filter({ has: page.locator(`a[href="/events/${eventId}"]`) });
  /** Long destination names, more than the latency chart has room for side by side at 1280 px. */
  const fanOut = ['Payments ledger webhook (eu-west-1)', 'Payments ledger webhook (us-east-1)', 'Warehouse inventory sync receiver', 'Customer notifications gateway', 'Analytics pipeline ingest endpoint', 'Fraud scoring service callback'];

  beforeAll(async () => {
    receiver = await startReceiver();
    receiver.respond = (req) => (req.path.endsWith('/bad') ? { status: 503, body: 'down' } : { status: 200, body: 'ok' });
    // The run's Temporal dev server's web UI: deliveries link to their workflow there.
    env = await startDashboardEnv({ env: { TEMPORAL_UI_URL: process.env.RELAY_TEST_TEMPORAL_UI_URL ?? '' } });
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
    // Flaky: 3 failures, then 2 successes (40 %): its newest attempt went through, its issue is still open.
    ids.flakySource = await endpoint('Flaky source');
    ids.flaky = await destination('Flaky receiver', `${receiver.url}/flaky`);
    await link(ids.flakySource, ids.flaky);
    ids.fanOutSource = await endpoint('Fan-out');
    for (const name of fanOut) await link(ids.fanOutSource, await destination(name, `${receiver.url}/ok`));
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
    // The Event id column fits at this width: no column runs off the table.
    const wrap = page.locator('.table-wrap').first();
    expect(await wrap.evaluate((el: Overflowing) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await page.getByTitle(ids.delivered).waitFor();

    // A row is a link: it opens in a new tab (Ctrl+click), and from the keyboard (one tab stop per row, Enter).
    const rowLinks = rowOf(page, ids.delivered).getByRole('link');
    expect(await rowLinks.count()).toBe(1);
    const [tab] = await Promise.all([env.context.waitForEvent('page'), rowLinks.click({ modifiers: ['Control'] })]);
    await tab.waitForURL(`**/events/${ids.delivered}`);
    await tab.getByTestId('event-outcome').locator('[data-outcome=delivered]').waitFor();
    // Delivered: it may be sent again, not "retried"; its workflow opens in the Temporal UI, in a new tab, on its page.
    const delivery = tab.getByTestId('delivery');
    await delivery.getByRole('button', { name: 'Send again' }).waitFor();
    expect(await tab.getByRole('button', { name: /Retry/ }).count()).toBe(0);
    const workflow = delivery.getByTestId('workflow-link');
    expect(await workflow.getAttribute('target')).toBe('_blank');
    const workflowUrl = (await workflow.getAttribute('href'))!;
    expect(workflowUrl).toMatch(new RegExp(`^${process.env.RELAY_TEST_TEMPORAL_UI_URL}/namespaces/default/workflows/delivery-[0-9a-f-]{36}$`));
    await env.screenshot('event-workflow-link', tab);
    const [temporal] = await Promise.all([env.context.waitForEvent('page'), workflow.click()]);
    await temporal.getByText(workflowUrl.split('/').pop()!).first().waitFor({ timeout: 30_000 });
    await temporal.getByText('Completed').first().waitFor({ timeout: 30_000 });
    await env.screenshot('temporal-ui-workflow', temporal);
    await temporal.close();
    await tab.close();
    await rowLinks.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/events/${ids.delivered}`);
    await page.goBack();

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
    await page.getByTestId('bulk-count').getByText('1 failed delivery matches').waitFor();
    await env.screenshot('bulk-retry-count');
    await page.getByRole('button', { name: 'Retry 1 failed delivery' }).dblclick();
    await page.getByTestId('bulk-progress').getByText('Done: 1 of 1 retried').waitFor({ timeout: 30_000 });
    await env.screenshot('bulk-retry-done');
    await page.goto('/events');
    await rowOf(page, ids.dead).getByText('delivered').waitFor({ timeout: 30_000 });
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.requests.filter((r) => r.path.endsWith('/bad')).length).toBe(before + 1);
  });

  it('a destination with an open issue and 40 % success is degraded, not healthy, on the list as on its page', async () => {
    const { page } = env;
    // One at a time, each answered before the next: 3 failures, then 2 successes.
    let flaky = 0;
    receiver.respond = (req) => (req.path.endsWith('/flaky') && flaky++ < 3 ? { status: 503, body: 'down' } : { status: 200, body: 'ok' });
    for (let i = 0; i < 5; i++) {
      const before = receiver.requests.filter((r) => r.path.endsWith('/flaky')).length;
      await sendTest(ids.flakySource);
      while (receiver.requests.filter((r) => r.path.endsWith('/flaky')).length === before) await new Promise((r) => setTimeout(r, 100));
    }
    const row = page.getByRole('table').getByRole('row').filter({ hasText: 'Flaky receiver' });
    // The last attempt is recorded a moment after the receiver answered: read the list again until it counts.
    for (let tries = 0; ; tries++) {
      await page.goto('/destinations');
      await row.waitFor();
      if ((await row.getByRole('cell').nth(4).textContent()) === '40.0%' || tries === 30) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(await row.getByRole('cell').nth(4).textContent()).toBe('40.0%');
    await row.getByText('degraded').waitFor();
    expect(await row.getByText('healthy').count()).toBe(0);
    expect(await row.getByText('degraded').getAttribute('title')).toBe('1 open issue; 40.0% of 5 attempts delivered in 24 h');
    await env.screenshot('destinations-health-degraded');
    await row.getByRole('link', { name: 'Flaky receiver' }).click();
    const health = page.getByTestId('health');
    await health.getByText('degraded').waitFor();
    await health.getByText('1 open issue; 40.0% of 5 attempts delivered in 24 h').waitFor();
    // Its recent deliveries link to their workflows too.
    expect(await page.getByRole('table', { name: 'Recent deliveries' }).getByTestId('workflow-link').count()).toBe(5);
  });

  it("the latency chart names every destination in its own slot, cut to fit, never over another's", async () => {
    const { page } = env;
    await sendTest(ids.fanOutSource);
    const names = page.getByRole('figure', { name: 'Attempt latency per destination' }).getByRole('list', { name: 'Categories' }).getByRole('listitem');
    // The page reads the metrics once: load it again until every fan-out destination's attempt is recorded (each
    // arrives on its own, later on a busy machine).
    for (let tries = 0; ; tries++) {
      await page.goto('/project-metrics');
      await names.first().waitFor();
      const titles = await names.evaluateAll((items: Overflowing[]) => items.map((li) => li.getAttribute('title')));
      if (fanOut.every((name) => titles.includes(name)) || tries === 30) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const boxes = await names.evaluateAll((items: Overflowing[]) => items.map((li) => ({ title: li.getAttribute('title'), ...li.getBoundingClientRect().toJSON(), cut: li.scrollHeight > li.clientHeight || li.scrollWidth > li.clientWidth })));
    expect(boxes.length).toBeGreaterThanOrEqual(fanOut.length);
    for (const [i, box] of boxes.entries()) if (i > 0) expect(box.left).toBeGreaterThanOrEqual(boxes[i - 1].right - 0.5);
    // The whole name on hover; at this width the long ones are cut.
    expect(boxes.map((b) => b.title)).toEqual(expect.arrayContaining(fanOut));
    expect(boxes.some((b) => b.cut)).toBe(true);
    await env.screenshot('metrics-latency-names');
  });

  it("the source page's recent events fit a 1024 px window, Event id included; their rows are links", async () => {
    const { page } = env;
    await page.setViewportSize({ width: 1024, height: 768 });
    try {
      await page.goto(`/endpoints/${ids.both}`);
      const table = page.getByRole('table', { name: 'Recent events' });
      await table.locator(`a[href="/events/${ids.mixed}"]`).first().waitFor();
      await table.getByTitle(ids.mixed).waitFor();
      expect(await table.locator('xpath=..').evaluate((el: Overflowing) => el.scrollWidth <= el.clientWidth)).toBe(true);
      await env.screenshot('endpoint-recent-events');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});
