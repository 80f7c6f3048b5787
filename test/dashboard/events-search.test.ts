import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { type DashboardEnv, describeInBrowser, graphql, logIn, signUpThroughApi, startDashboardEnv } from './browser';

const PASSWORD = 'correct horse battery staple';

/**
 * Issue 18.2 in a real browser: the Events page's search box searches payloads and header values
 * (text) or payloads by JSON containment (a value starting with `{`), keeps the search in the
 * URL (deep link, reload), and shows a bad JSON search as an error instead of an empty list.
 */
describeInBrowser('dashboard events search: text and JSON containment, in the URL', () => {
  let env: DashboardEnv;
  let token = '';
  let projectId = '';
  const ids: Record<string, string> = {};
  const email = `search-${Date.now()}@example.test`;
  const rowOf = (page: Page, eventId: string) => page.getByRole('table', { name: 'Events' }).getByRole('row').filter({ has: page.locator(`a[href="/events/${eventId}"]`) });
  const searchBox = (page: Page) => page.getByLabel('Search payloads and headers');

  beforeAll(async () => {
    env = await startDashboardEnv();
    token = await signUpThroughApi(env.baseUrl, email, PASSWORD);
    projectId = (await graphql(env.baseUrl, '{ projects { data { id } } }', {}, token)).projects.data[0].id;
    const { slug, signingSecret } = (
      await graphql(env.baseUrl, 'mutation ($p: ID) { createEndpoint(projectId: $p, input: { name: "Code host" }) { slug signingSecret } }', { p: projectId }, token)
    ).createEndpoint;
    const post = async (payload: unknown, headers: Record<string, string> = {}) => {
      const body = JSON.stringify(payload);
      const res = await fetch(`${env.baseUrl}/hooks/${slug}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', signingSecret).update(body).digest('hex')}`, ...headers },
        body,
      });
      expect(res.status).toBe(202);
      return ((await res.json()) as { event_id: string }).event_id;
    };
    ids.relay = await post({ action: 'opened', repository: { name: 'relay' }, title: 'Search the payloads' }, { 'user-agent': 'GitHub-Hookshot/4f2a' });
    ids.other = await post({ action: 'closed', repository: { name: 'other' }, title: 'Unrelated' });
    ids.relay2 = await post({ action: 'closed', repository: { name: 'relay' }, title: 'Second one' });
  }, 180_000);
  afterAll(() => env?.close());

  it('a text search finds payload text and header values, goes into the URL and survives a reload', async () => {
    const { page } = env;
    await logIn(page, email, PASSWORD);
    await rowOf(page, ids.other).waitFor({ timeout: 30_000 });
    await searchBox(page).fill('hookshot');
    await page.waitForURL(/search=hookshot/);
    await rowOf(page, ids.other).waitFor({ state: 'detached' });
    await rowOf(page, ids.relay).waitFor();
    expect(await page.getByRole('table', { name: 'Events' }).getByRole('row').count()).toBe(2); // header + one row
    await page.reload();
    await rowOf(page, ids.relay).waitFor();
    expect(await rowOf(page, ids.other).count()).toBe(0);
    expect(await searchBox(page).inputValue()).toBe('hookshot');
  });

  it('a JSON search is a containment; a deep link with another filter keeps both; bad JSON shows the error', async () => {
    const { page } = env;
    const json = '{"repository":{"name":"relay"}}';
    await page.goto(`/events?search=${encodeURIComponent(json)}`);
    await rowOf(page, ids.relay).waitFor({ timeout: 30_000 });
    await rowOf(page, ids.relay2).waitFor();
    expect(await rowOf(page, ids.other).count()).toBe(0);
    expect(await searchBox(page).inputValue()).toBe(json);
    await env.screenshot('events-search');

    await searchBox(page).fill('{"action":"closed","repository":{"name":"relay"}}');
    await page.waitForURL(/search=%7B%22action/);
    await rowOf(page, ids.relay).waitFor({ state: 'detached' });
    await rowOf(page, ids.relay2).waitFor();
    await page.reload();
    await rowOf(page, ids.relay2).waitFor();
    expect(await rowOf(page, ids.relay).count()).toBe(0);

    await searchBox(page).fill('{"repository":');
    await page.getByText(/contains: must be a JSON object or array/).waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.waitForURL((url) => url.search === '');
    await rowOf(page, ids.other).waitFor();
    expect(await searchBox(page).inputValue()).toBe('');
  });
});
