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
});
