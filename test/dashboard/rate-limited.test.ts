import { startReceiver, type Receiver } from '../delivery/receiver';
import { type DashboardEnv, describeInBrowser, graphql, logIn, signUpThroughApi, startDashboardEnv } from './browser';

const PASSWORD = 'correct horse battery staple';

/**
 * An answer that was waited out is on the event page (docs/receiver-signals.md): a receiver answers 503 with
 * `Retry-After`, then 200; the event page lists a `rate-limited` attempt with its 503 before the delivered one.
 */
describeInBrowser('dashboard event page: a waited-out answer is an attempt of its own', () => {
  let env: DashboardEnv;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    receiver.respond = (_req, i) => (i === 0 ? { status: 503, body: 'back in a second', headers: { 'retry-after': '1' } } : { status: 200, body: 'ok' });
    env = await startDashboardEnv();
  }, 180_000);

  afterAll(async () => {
    await env?.close();
    await receiver?.close();
  });

  it('shows the 503 as rate-limited, not counted, then the delivery', async () => {
    const email = `owner-${Date.now()}@example.test`;
    const token = await signUpThroughApi(env.baseUrl, email, PASSWORD);
    const p = (await graphql(env.baseUrl, '{ projects { data { id } } }', {}, token)).projects.data[0].id;
    const as = (query: string, variables: Record<string, unknown> = {}) => graphql(env.baseUrl, query, { p, ...variables }, token);
    const endpoint = (await as('mutation ($p: ID) { createEndpoint(projectId: $p, input: { name: "Orders" }) { id } }')).createEndpoint.id;
    const destination = (
      await as('mutation ($p: ID, $i: DestinationInput!) { createDestination(projectId: $p, input: $i) { id } }', {
        i: { name: 'Busy receiver', type: 'webhook', webhookUrl: receiver.url, retryPolicy: { maxAttempts: 2, backoff: [60] } },
      })
    ).createDestination.id;
    await as('mutation ($p: ID, $e: ID!, $d: ID) { createLink(projectId: $p, endpointId: $e, input: { destinationId: $d }) { destinationId } }', { e: endpoint, d: destination });
    const eventId = (await as('mutation ($p: ID, $e: ID!) { sendTestEvent(projectId: $p, endpointId: $e) { eventId } }', { e: endpoint })).sendTestEvent.eventId;

    const { page } = env;
    await logIn(page, email, PASSWORD);
    await page.goto(`/events/${eventId}`);
    const attempts = page.getByRole('table', { name: 'Attempts' });
    await attempts.locator('[data-outcome=delivered]').waitFor({ timeout: 30_000 });
    const rows = attempts.getByRole('row');
    const waited = rows.filter({ has: page.locator('[data-outcome=rate_limited]') });
    expect(await waited.count()).toBe(1);
    expect(await waited.getByRole('cell').first().textContent()).toBe('1');
    expect(await waited.getByTestId('status-code').textContent()).toBe('503');
    expect(await waited.locator('[data-outcome=rate_limited]').textContent()).toBe('rate-limited');
    expect(await waited.getByText('HTTP 503 Service Unavailable; waited out, not counted towards max_attempts').count()).toBe(1);
    const delivered = rows.filter({ has: page.locator('[data-outcome=delivered]') });
    expect(await delivered.getByRole('cell').first().textContent()).toBe('2');
  });
});
