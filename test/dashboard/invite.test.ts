import type { Page } from 'playwright-core';
import { Client } from 'pg';
import { freePort } from '../support/free-port';
import { startOAuthServer, type OAuthTestServer } from '../support/oauth-server';
import { type DashboardEnv, describeInBrowser, graphql, logIn, signUpThroughApi, startDashboardEnv } from './browser';

const PASSWORD = 'correct horse battery staple';
const OAUTH_EMAIL = `oauth-invitee-${Date.now()}@example.test`;

/**
 * Team onboarding (issue 18.5): the invite link an admin copies from the Members page, signing
 * up through it (password and OAuth: the account joins the inviting organization, no default
 * workspace), a signed-in user accepting it (joins and switches), and the messages for used,
 * expired and revoked links.
 */
describeInBrowser('dashboard: invite links', () => {
  let env: DashboardEnv;
  let oauth: OAuthTestServer;
  let token = '';
  let orgId = '';
  const ownerEmail = `inviter-${Date.now()}@example.test`;

  const gql = <T = any>(query: string, variables: Record<string, unknown> = {}) => graphql<T>(env.baseUrl, query, { o: orgId, ...variables }, token);
  const invite = async (email: string, role: string) =>
    (await gql<{ createInvite: { id: string; url: string } }>('mutation ($o: ID!, $e: String!, $r: String!) { createInvite(organizationId: $o, email: $e, role: $r) { id url } }', { e: email, r: role }))
      .createInvite;
  /** A signed-out browser: a context of its own. */
  const signedOut = async () => (await env.browser.newContext({ baseURL: env.baseUrl })).newPage();
  /** The organizations the page's project switcher offers, as "<name> (<role>)". */
  const switcherGroups = async (page: Page) => Promise.all((await page.locator('.switcher optgroup').all()).map((group) => group.getAttribute('label')));

  beforeAll(async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    oauth = await startOAuthServer({
      redirectUris: [`${base}/v1/oauth/codehost_a/callback`],
      user: { sub: 'invitee-oauth-1', email: OAUTH_EMAIL, email_verified: true, preferred_username: 'invitee' },
    });
    env = await startDashboardEnv({ port, env: { PUBLIC_BASE_URL: base, ...oauth.env('codehost_a') } });
    token = await signUpThroughApi(env.baseUrl, ownerEmail, PASSWORD);
    orgId = (await graphql(env.baseUrl, '{ organizations { data { id } } }', {}, token)).organizations.data[0].id;
    await gql('mutation ($o: ID!) { renameOrganization(organizationId: $o, name: "Acme Robotics") { id } }');
  }, 180_000);
  afterAll(async () => {
    await env?.close();
    await oauth?.close();
  });

  it('an admin invites from the Members page and gets a link to the dashboard carrying the token', async () => {
    const { page } = env;
    await logIn(page, ownerEmail, PASSWORD);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members', exact: true }).click();
    const form = page.getByRole('form', { name: 'Invite' });
    await form.getByLabel('Email').fill('new-dev@example.test');
    await form.getByLabel('Role').selectOption('developer');
    await form.getByRole('button', { name: 'Invite' }).click();
    const link = (await page.getByTestId('secret-value').textContent()) ?? '';
    expect(link).toMatch(new RegExp(`^${env.baseUrl}/invite/inv_[A-Za-z0-9_-]+$`));
    await page.getByRole('button', { name: 'Copy: copy to clipboard' }).waitFor();
    await env.screenshot('invite-link');

    // Signed out, the link offers sign-up for the invited address, in the inviting organization.
    const invitee = await signedOut();
    await invitee.goto(link);
    await invitee.getByRole('heading', { name: 'Join Acme Robotics' }).waitFor();
    expect(await invitee.getByTestId('invite-summary').textContent()).toContain('invited to Acme Robotics as developer');
    expect(await invitee.getByLabel('Email').inputValue()).toBe('new-dev@example.test');
    await env.screenshot('invite-signup', invitee);
    await invitee.getByLabel('Password').fill(PASSWORD);
    await invitee.getByRole('button', { name: 'Sign up' }).click();
    await invitee.getByRole('heading', { name: 'Events' }).waitFor();
    expect(new URL(invitee.url()).pathname).toBe('/events');
    expect(await invitee.getByTestId('role').textContent()).toBe('developer');
    // Joined the inviting organization only: no default workspace of its own.
    expect(await switcherGroups(invitee)).toEqual(['Acme Robotics (developer)']);

    // The link is spent: opening it again says so.
    const later = await signedOut();
    await later.goto(link);
    await later.getByRole('heading', { name: 'This invite cannot be used' }).waitFor();
    await later.getByRole('alert').getByText('This invite has already been accepted.').waitFor();
    await env.screenshot('invite-used', later);
    await later.getByRole('button', { name: 'Go to sign in' }).click();
    await later.getByRole('heading', { name: 'Log in to relay' }).waitFor();
    await Promise.all([invitee.context().close(), later.context().close()]);
  });

  it('signing up through the link with OAuth joins the inviting organization', async () => {
    const { url } = await invite(OAUTH_EMAIL, 'admin');
    const page = await signedOut();
    await page.goto(url);
    await page.getByRole('heading', { name: 'Join Acme Robotics' }).waitFor();
    await page.getByRole('button', { name: 'Continue with codehost_a' }).click();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    expect(await page.getByTestId('role').textContent()).toBe('admin');
    expect(await switcherGroups(page)).toEqual(['Acme Robotics (admin)']);
    await page.context().close();
  });

  it('a signed-in user accepts the link: joins and switches to that organization', async () => {
    const email = `existing-${Date.now()}@example.test`;
    await signUpThroughApi(env.baseUrl, email, PASSWORD);
    const { url } = await invite(email, 'viewer');
    const page = await signedOut();
    await logIn(page, email, PASSWORD);
    expect(await page.getByTestId('role').textContent()).toBe('owner');

    await page.goto(url);
    await page.getByRole('heading', { name: 'Join Acme Robotics' }).waitFor();
    await env.screenshot('invite-accept', page);
    await page.getByRole('button', { name: 'Accept and join' }).click();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    expect(await page.getByTestId('role').textContent()).toBe('viewer');
    expect(await switcherGroups(page)).toEqual(expect.arrayContaining(['Default (owner)', 'Acme Robotics (viewer)']));
    // A reload stays in the organization joined.
    await page.reload();
    await page.getByRole('heading', { name: 'Events' }).waitFor();
    expect(await page.getByTestId('role').textContent()).toBe('viewer');
    await page.context().close();
  });

  it('an expired or revoked link, or another address, gets a clear message', async () => {
    const expiring = await invite(`late-${Date.now()}@example.test`, 'viewer');
    const db = new Client({ connectionString: env.databaseUrl });
    await db.connect();
    try {
      await db.query("UPDATE invites SET expires_at = now() - interval '1 minute' WHERE id = $1", [expiring.id]);
    } finally {
      await db.end();
    }
    const revoked = await invite(`gone-${Date.now()}@example.test`, 'viewer');
    await gql('mutation ($o: ID!, $i: ID!) { revokeInvite(organizationId: $o, inviteId: $i) }', { i: revoked.id });

    const page = await signedOut();
    await page.goto(expiring.url);
    await page.getByRole('alert').getByText('This invite has expired: ask for a new one.').waitFor();
    await env.screenshot('invite-expired', page);
    await page.goto(revoked.url);
    await page.getByRole('alert').getByText('This invite was revoked or does not exist: ask for a new one.').waitFor();

    // Signed in as someone else: accepting names the address the invite was sent to.
    const other = await invite(`someone-${Date.now()}@example.test`, 'viewer');
    await env.page.goto(other.url);
    await env.page.getByRole('button', { name: 'Accept and join' }).click();
    await env.page.getByRole('alert').getByText(/sent to another email address/).waitFor();
    await page.context().close();
  });
});
