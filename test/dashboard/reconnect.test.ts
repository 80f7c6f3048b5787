import { Client } from 'pg';
import type { Page } from 'playwright-core';
import { uuidv7 } from '../../src/common/ids';
import { type DashboardEnv, describeInBrowser, graphql, startDashboardEnv } from './browser';

const PASSWORD = 'correct horse battery staple';

/**
 * Issue 17.4, the dashboard's side: with the Events page open, the API restarts gracefully and
 * then crashes (kill -9). The live indicator tells the truth (reconnecting, then live), the page
 * reads again what arrived while it was away (an event stored while the API was down), and new
 * events arrive live again, without a reload.
 */
describeInBrowser('dashboard: live view survives API restarts (graceful and kill -9)', () => {
  let env: DashboardEnv;
  let token = '';
  let projectId = '';
  let endpointId = '';
  const email = `owner-${Date.now()}@example.test`;
  const indicator = (page: Page) => page.getByTestId('live-indicator');
  const rowOf = (page: Page, eventId: string) => page.getByRole('table', { name: 'Events' }).getByRole('row').filter({ has: page.locator(`a[href="/events/${eventId}"]`) });

  /** An event stored behind the API's back (as another API instance would), with no notification. */
  async function storeEventDirectly(): Promise<string> {
    const id = uuidv7();
    const db = new Client({ connectionString: env.databaseUrl });
    await db.connect();
    try {
      await db.query(
        `insert into events (id, endpoint_id, project_id, organization_id, event_type, payload, headers, status)
         select $1, ep.id, ep.project_id, p.organization_id, 'while.away', '{"n":1}'::json, '{}'::json, 'received'
           from webhook_endpoints ep join projects p on p.id = ep.project_id where ep.id = $2`,
        [id, endpointId],
      );
    } finally {
      await db.end();
    }
    return id;
  }
  const sendTest = async () =>
    (await graphql(env.baseUrl, 'mutation ($p: ID, $e: ID!) { sendTestEvent(projectId: $p, endpointId: $e) { eventId } }', { p: projectId, e: endpointId }, token)).sendTestEvent
      .eventId as string;
  const login = async () =>
    (token = (await graphql(env.baseUrl, 'mutation ($e: String!, $pw: String!) { login(email: $e, password: $pw) { accessToken } }', { e: email, pw: PASSWORD })).login.accessToken);

  beforeAll(async () => {
    env = await startDashboardEnv();
    token = (await graphql(env.baseUrl, 'mutation ($i: SignupInput!) { signup(input: $i) { accessToken } }', { i: { email, password: PASSWORD } })).signup.accessToken;
    projectId = (await graphql(env.baseUrl, '{ projects { data { id } } }', {}, token)).projects.data[0].id;
    endpointId = (await graphql(env.baseUrl, 'mutation ($p: ID) { createEndpoint(projectId: $p, input: { name: "Orders" }) { id } }', { p: projectId }, token)).createEndpoint.id;
  }, 180_000);
  afterAll(() => env?.close(), 120_000);

  it('is live on the events page', async () => {
    const { page } = env;
    await page.goto('/');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    await page.locator('[data-testid=live-indicator][data-state=live]').waitFor();
    const first = await sendTest();
    await rowOf(page, first).waitFor();
  });

  for (const mode of ['graceful', 'kill'] as const) {
    it(`after a ${mode === 'kill' ? 'kill -9' : 'graceful restart'}: reconnecting, then live, with what arrived meanwhile, and live events again`, async () => {
      const { page } = env;
      let away = '';
      const started = Date.now();
      await env.restartService(mode, async () => {
        await page.locator('[data-testid=live-indicator][data-state=reconnecting]').waitFor({ timeout: 10_000 });
        expect(await indicator(page).textContent()).toMatch(/reconnecting \(attempt \d+\)/);
        await env.screenshot(`events-reconnecting-${mode}`);
        away = await storeEventDirectly();
      });
      await page.locator('[data-testid=live-indicator][data-state=live]').waitFor({ timeout: 30_000 });
      process.stdout.write(`dashboard live again ${((Date.now() - started) / 1000).toFixed(1)} s after the ${mode} restart began (not asserted)\n`);
      // Backfill: the event stored while the API was down shows without a reload.
      await rowOf(page, away).waitFor({ timeout: 15_000 });
      await login();
      const fresh = await sendTest();
      await rowOf(page, fresh).waitFor({ timeout: 15_000 });
    });
  }
});
