import { startOAuthServer, type OAuthTestServer } from '../support/oauth-server';
import { freePort } from '../support/free-port';
import { type DashboardEnv, describeInBrowser, startDashboardEnv } from './browser';

/** Signing in and staying signed in: OAuth through the dashboard's own PKCE pair, and refresh across tabs. */
describeInBrowser('dashboard: OAuth sign-in and sessions across tabs', () => {
  let env: DashboardEnv;
  let oauth: OAuthTestServer;

  beforeAll(async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    oauth = await startOAuthServer({
      redirectUris: [`${base}/v1/oauth/codehost_a/callback`],
      user: { sub: 'dash-user-1', email: 'dash-oauth@example.test', email_verified: true, preferred_username: 'dasho' },
    });
    env = await startDashboardEnv({ port, env: { PUBLIC_BASE_URL: base, ...oauth.env('codehost_a') } });
  }, 120_000);
  afterAll(async () => {
    await env?.close();
    await oauth?.close();
  });

  it('signs in with the provider: the API callback sends the browser to /oauth/callback, the page exchanges the code', async () => {
    const { page } = env;
    await page.goto('/');
    await page.getByRole('button', { name: 'Continue with codehost_a' }).click();
    // The fake provider consents at once; its redirect, the API's and the exchange end in the signed-in shell.
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    await page.getByText('dash-oauth@example.test').waitFor();
    expect(new URL(page.url()).pathname).toBe('/events');
    expect(await page.getByTestId('role').textContent()).toBe('owner');

    const exchange = env.received.find((r) => r.operation === 'ExchangeOAuthCode');
    expect(exchange?.body).toContain('"accessToken"');
    // The verifier is spent, and the provider's own tokens never reach the browser.
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    env.expectNotReceived(oauth.issued);
    expect(env.refusals()).toEqual([]);
  });

  it('shows the error when the provider refuses, with a way back', async () => {
    // A fresh context: signed out.
    const context = await env.browser.newContext({ baseURL: env.baseUrl });
    try {
      oauth.deny = true;
      const page = await context.newPage();
      await page.goto('/');
      await page.getByRole('button', { name: 'Continue with codehost_a' }).click();
      await page.getByText('codehost_a did not authorize').waitFor();
      expect(new URL(page.url()).pathname).toBe('/oauth/callback');
      await page.getByRole('button', { name: 'Back to sign in' }).click();
      await page.getByRole('heading', { name: 'Log in to relay' }).waitFor();
    } finally {
      oauth.deny = false;
      await context.close();
    }
  });

  // Under CPU load (3 busy loops beside it) a tab could get the Web Lock before the other tab's new refresh token
  // reached its localStorage (and before the BroadcastChannel message): it spent the old token again and reuse
  // detection signed both tabs out. The API's reuse grace answers that with the same successor (test/accounts/refresh-grace.test.ts).
  it('keeps two tabs signed in when both refresh at the same moment (one refresh at a time across tabs)', async () => {
    // Signed in by the first test; a second tab of the same browser shares the refresh token.
    const tabs = [env.page, await env.context.newPage()];
    await tabs[1].goto('/events');
    await tabs[1].getByRole('heading', { name: 'Events' }).waitFor();
    // Hold a refresh until the other tab's arrives too (or 1.5 s pass), so two refreshes in flight would meet at the
    // server: without a lock across tabs both spend the same refresh token and reuse detection revokes the family.
    let waiting: (() => void) | null = null;
    let refreshes = 0;
    await env.context.route('**/graphql', async (route) => {
      if (!route.request().postData()?.includes('mutation Refresh(')) return route.continue();
      refreshes++;
      if (waiting) waiting();
      else await new Promise<void>((resolve) => setTimeout((waiting = resolve), 1500)).finally(() => (waiting = null));
      return route.continue();
    });
    try {
      for (let round = 0; round < 3; round++) {
        // A reload forgets the in-memory access token: both tabs refresh as they start.
        await Promise.all(tabs.map((tab) => tab.reload()));
        for (const tab of tabs) await tab.getByText('dash-oauth@example.test').waitFor();
      }
    } finally {
      await env.context.unrouteAll();
    }
    expect(refreshes).toBeGreaterThanOrEqual(3);
    expect(env.refusals(['refresh_token_reused', 'unauthenticated', 'invalid_refresh_token'])).toEqual([]);
    for (const tab of tabs) expect(await tab.evaluate('localStorage.getItem("relay.refreshToken") !== null')).toBe(true);
    await tabs[1].close();
  });

  it('stays signed in when the page reloads while the API answers its refresh (the answer is lost)', async () => {
    const { page } = env;
    let reloaded: Promise<unknown> | undefined;
    await env.context.route('**/graphql', async (route) => {
      if (reloaded || !route.request().postData()?.includes('mutation Refresh(')) return route.continue();
      await route.fetch(); // the API rotates the refresh token and answers...
      reloaded = page.reload(); // ...but the page reloads before it reads the answer: the stored token is the spent one
      await route.abort().catch(() => undefined);
    });
    try {
      await page.goto('/events');
      while (!reloaded) await new Promise((resolve) => setTimeout(resolve, 50));
      await reloaded;
      await page.getByText('dash-oauth@example.test').waitFor();
    } finally {
      await env.context.unrouteAll();
    }
    expect(env.refusals(['refresh_token_reused', 'unauthenticated', 'invalid_refresh_token'])).toEqual([]);
  });

  it('logging out in one tab signs the other tabs out', async () => {
    const other = await env.context.newPage();
    await other.goto('/events');
    await other.getByText('dash-oauth@example.test').waitFor();
    await env.page.getByRole('button', { name: 'Log out' }).click();
    await env.page.getByRole('heading', { name: 'Log in to relay' }).waitFor();
    await other.getByRole('heading', { name: 'Log in to relay' }).waitFor();
  });
});
