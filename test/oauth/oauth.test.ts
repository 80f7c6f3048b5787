import { OAuthConnection } from '../../src/oauth/oauth-connection.entity';
import { connectionAccessToken } from '../../src/oauth/oauth-connection.service';
import { OAuthState } from '../../src/oauth/oauth-state.entity';
import { WebhookEndpoint } from '../../src/endpoints/endpoint.entity';
import { OrganizationMember } from '../../src/organizations/organization-member.entity';
import { type ApiServer, startApiServer } from '../../src/http/server';
import { freePort } from '../support/free-port';
import { RecordingClient, signup, uniqueEmail } from '../support/accounts';
import { startOAuthServer, type OAuthTestServer } from '../support/oauth-server';
import pino from 'pino';
import { createContainer } from '../../src/app/container';
import { createTestDatabase, testConfig, type TestDatabase } from '../support/test-env';

describe('OAuth sign-in and connections against a local OAuth 2 server', () => {
  let env: { container: Awaited<ReturnType<typeof createContainer>>; db: TestDatabase };
  /** Every log line the API writes, at trace level: secrets must not be in them either. */
  const logLines: string[] = [];
  let server: ApiServer;
  let oauth: OAuthTestServer;
  let client: RecordingClient;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    oauth = await startOAuthServer({ redirectUris: ['codehost_a', 'codehost_b', 'tracker_a'].map((p) => `${base}/v1/oauth/${p}/callback`) });
    const db = await createTestDatabase();
    const config = testConfig({
      DATABASE_URL: db.url,
      PUBLIC_BASE_URL: base,
      ...oauth.env('codehost_a'),
      ...oauth.env('tracker_a'),
      OAUTH_TRACKER_A_CLIENT_AUTH: 'post',
      // A provider whose issuer is configured: its callbacks must name it (RFC 9207).
      ...oauth.env('codehost_b'),
      OAUTH_CODEHOST_B_ISSUER: oauth.url,
    });
    env = { db, container: await createContainer(config, pino({ level: 'trace' }, { write: (line: string) => logLines.push(line) })) };
    server = await startApiServer(env.container, port, '127.0.0.1');
    client = new RecordingClient(base);
  });
  afterAll(async () => {
    const em = env.container.orm.em.fork();
    const sealed = (await em.find(OAuthConnection, {})).flatMap((c) => [c.accessTokenEnc, c.refreshTokenEnc]);
    const secrets = [oauth.clientSecret, ...oauth.issued, ...sealed];
    client.expectNoSecrets(secrets);
    for (const line of logLines) for (const secret of secrets) expect(line).not.toContain(secret!);
    await server.close();
    await env.container.close();
    await env.db.drop();
    await oauth.close();
  });

  /** The user's browser: follows authorization_url to the provider, which redirects back with code and state. */
  async function authorize(authorizationUrl: string): Promise<URL> {
    const res = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(res.status).toBe(302);
    return new URL(res.headers.get('location')!);
  }

  async function signInFlow(provider = 'codehost_a', body: Record<string, unknown> = {}) {
    const start = await client.rest('POST', `/v1/oauth/${provider}/authorize`, { body });
    expect(start.status).toBe(200);
    const back = await authorize(start.body.authorization_url);
    return client.rest('GET', `${back.pathname}${back.search}`);
  }

  it('sends a PKCE S256 challenge and a state to the configured authorize URL', async () => {
    const start = await client.rest('POST', '/v1/oauth/codehost_a/authorize', { body: {} });
    const url = new URL(start.body.authorization_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${oauth.url}/authorize`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: oauth.clientId,
      redirect_uri: `${base}/v1/oauth/codehost_a/callback`,
      code_challenge_method: 'S256',
      state: start.body.state,
      scope: 'repo read:user',
    });
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const row = await env.container.orm.em.fork().findOneOrFail(OAuthState, { provider: 'codehost_a', purpose: 'sign_in' });
    expect(row.expiresAt.getTime()).toBeGreaterThan(Date.now());
  });

  it('first sign-in creates the user with a Default workspace; the next one signs in as the same user', async () => {
    oauth.user = { sub: 'gh-100', email: 'Octo@Example.test', email_verified: true, preferred_username: 'octo' };
    const first = await signInFlow();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ token_type: 'Bearer', user: { email: 'octo@example.test', has_password: false } });
    const orgs = await client.rest('GET', '/v1/organizations', { token: first.body.access_token });
    expect(orgs.body.data).toEqual([expect.objectContaining({ name: 'Default', role: 'owner' })]);

    const second = await signInFlow();
    expect(second.body.user.id).toBe(first.body.user.id);
    const after = await client.rest('GET', '/v1/organizations', { token: second.body.access_token });
    expect(after.body.data).toHaveLength(1);
  });

  it('signs in through GraphQL with client_secret_post, and through an invite without a default workspace', async () => {
    const owner = await signup(client);
    const [org] = (await client.rest('GET', '/v1/organizations', { token: owner.access_token })).body.data;
    const inviteeEmail = uniqueEmail('invitee');
    const invite = await client.rest('POST', `/v1/organizations/${org.id}/invites`, { token: owner.access_token, body: { email: inviteeEmail, role: 'developer' } });
    oauth.user = { sub: 'tr-7', email: inviteeEmail, email_verified: true, preferred_username: 'inv' };

    const start = await client.gql('mutation($t: String) { startOAuthSignIn(provider: "tracker_a", inviteToken: $t) { authorizationUrl state } }', { t: invite.body.token });
    const back = await authorize(start.data.startOAuthSignIn.authorizationUrl);
    const done = await client.gql(
      'mutation($c: String!, $s: String!) { completeOAuthSignIn(provider: "tracker_a", code: $c, state: $s) { accessToken user { email } } }',
      { c: back.searchParams.get('code'), s: back.searchParams.get('state') },
    );
    expect(done.errors).toBeUndefined();
    expect(done.data.completeOAuthSignIn.user.email).toBe(inviteeEmail);
    expect(oauth.grants).toContain('authorization_code');
    const orgs = await client.rest('GET', '/v1/organizations', { token: done.data.completeOAuthSignIn.accessToken });
    expect(orgs.body.data).toEqual([expect.objectContaining({ id: org.id, role: 'developer' })]);
  });

  it('links an existing account only when the provider verified the email', async () => {
    const email = uniqueEmail('existing');
    const existing = await signup(client, email);
    oauth.user = { sub: 'gh-200', email, email_verified: false };
    const refused = await signInFlow();
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('email_taken');
    oauth.user = { sub: 'gh-200', email, email_verified: true };
    const linked = await signInFlow();
    expect(linked.body.user.id).toBe(existing.user.id);
  });

  it('refuses reused, unknown, expired and mismatched states, denials, and unconfigured providers', async () => {
    oauth.user = { sub: 'gh-300', email: uniqueEmail(), email_verified: true };
    const a = await client.rest('POST', '/v1/oauth/codehost_a/authorize', { body: {} });
    const b = await client.rest('POST', '/v1/oauth/codehost_a/authorize', { body: {} });
    const backA = await authorize(a.body.authorization_url);
    // Flow A's code with flow B's state: the PKCE verifier does not match A's challenge, and the provider refuses.
    const swapped = await client.rest('GET', `/v1/oauth/codehost_a/callback?code=${backA.searchParams.get('code')}&state=${b.body.state}`);
    expect(swapped.status).toBe(400);
    expect(swapped.body.error.code).toBe('oauth_invalid_grant');
    // The provider burned that code; a fresh flow completes once, and only once.
    expect((await client.rest('GET', `${backA.pathname}${backA.search}`)).body.error.code).toBe('oauth_invalid_grant');
    const d = await client.rest('POST', '/v1/oauth/codehost_a/authorize', { body: {} });
    const backD = await authorize(d.body.authorization_url);
    const ok = await client.rest('GET', `${backD.pathname}${backD.search}`);
    expect(ok.status).toBe(200);
    const reused = await client.rest('GET', `${backD.pathname}${backD.search}`);
    expect(reused.body.error.code).toBe('invalid_oauth_state');
    expect((await client.rest('GET', '/v1/oauth/codehost_a/callback?code=x&state=unknown')).body.error.code).toBe('invalid_oauth_state');
    expect((await client.rest('GET', '/v1/oauth/codehost_a/callback?code=x')).body.error.details.fields[0].field).toBe('state');

    const c = await client.rest('POST', '/v1/oauth/codehost_a/authorize', { body: {} });
    const em = env.container.orm.em.fork();
    await em.nativeUpdate(OAuthState, { expiresAt: { $gt: new Date() } }, { expiresAt: new Date(Date.now() - 1000) });
    const backC = await authorize(c.body.authorization_url);
    expect((await client.rest('GET', `${backC.pathname}${backC.search}`)).body.error.code).toBe('oauth_state_expired');

    oauth.deny = true;
    try {
      const denied = await signInFlow();
      expect(denied.status).toBe(400);
      expect(denied.body.error).toMatchObject({ code: 'oauth_denied', details: { provider_error: 'access_denied' } });
    } finally {
      oauth.deny = false;
    }
    const unconfigured = await client.rest('POST', '/v1/oauth/chat_b/authorize', { body: {} });
    expect(unconfigured.status).toBe(400);
    expect(unconfigured.body.error.code).toBe('oauth_provider_not_configured');
    expect(unconfigured.body.error.message).toContain('OAUTH_CHAT_B_CLIENT_ID');
    expect((await client.rest('POST', '/v1/oauth/nope/authorize', { body: {} })).status).toBe(400);
  });

  describe('connections', () => {
    let owner: Awaited<ReturnType<typeof signup>>;
    let projectId: string;

    beforeAll(async () => {
      owner = await signup(client);
      projectId = (await client.rest('GET', '/v1/projects', { token: owner.access_token })).body.data[0].id;
    });

    async function connect(body: Record<string, unknown>) {
      const start = await client.rest('POST', '/v1/oauth-connections', { token: owner.access_token, body: { project_id: projectId, ...body } });
      expect(start.status).toBe(201);
      const back = await authorize(start.body.authorization_url);
      // The browser lands on the callback without the API session: the stored state says who and which project.
      return client.rest('GET', `${back.pathname}${back.search}`);
    }

    it('connects a code host, seals its tokens and creates an integration endpoint once', async () => {
      oauth.user = { sub: 'gh-500', preferred_username: 'builder' };
      const res = await connect({ provider: 'codehost_a', create_endpoint: true });
      expect(res.status).toBe(200);
      expect(res.body.connection).toMatchObject({
        project_id: projectId, provider: 'codehost_a', provider_user_id: 'gh-500', provider_username: 'builder', scopes: 'repo,read:user', has_refresh_token: true, metadata: {},
      });
      expect(res.body.endpoint).toMatchObject({ url: `${base}/hooks/${res.body.endpoint.slug}`, signing_secret: expect.stringMatching(/^whsec_/) });

      const em = env.container.orm.em.fork();
      const row = await em.findOneOrFail(OAuthConnection, res.body.connection.id);
      expect(oauth.issued).toContain(env.container.secrets.open(row.accessTokenEnc!));
      expect(row.accessTokenEnc).not.toContain('at_');
      const endpoint = await em.findOneOrFail(WebhookEndpoint, res.body.endpoint.id);
      expect(endpoint).toMatchObject({ isIntegration: true, provider: 'codehost_a' });
      expect(endpoint.oauthConnection?.id).toBe(row.id);
      expect(env.container.secrets.open(endpoint.signingSecretEnc!)).toBe(res.body.endpoint.signing_secret);

      const again = await connect({ provider: 'codehost_a', create_endpoint: true });
      expect(again.body.connection.id).toBe(res.body.connection.id);
      expect(again.body.endpoint).toBeNull();
    });

    it('completes through GraphQL only as the user who started the flow', async () => {
      oauth.user = { sub: 'ch-b-1', preferred_username: 'gql' };
      const stranger = await signup(client);
      const code = async () => {
        const start = await client.gql('mutation($p: ID) { startOAuthConnection(provider: "codehost_a", projectId: $p) { authorizationUrl } }', { p: projectId }, { token: owner.access_token });
        const back = await authorize(start.data.startOAuthConnection.authorizationUrl);
        return { c: back.searchParams.get('code'), s: back.searchParams.get('state') };
      };
      const complete = 'mutation($c: String!, $s: String!) { completeOAuthConnection(provider: "codehost_a", code: $c, state: $s) { connection { providerUserId projectId } endpoint { id } } }';
      const hijack = await client.gql(complete, await code(), { token: stranger.access_token });
      expect(hijack.errors?.[0].extensions).toMatchObject({ code: 'oauth_flow_forbidden', status: 403 });
      const done = await client.gql(complete, await code(), { token: owner.access_token });
      expect(done.data.completeOAuthConnection).toEqual({ connection: { providerUserId: 'ch-b-1', projectId }, endpoint: null });
      await client.gql('mutation($id: ID!) { deleteOAuthConnection(id: $id) }', { id: (await client.rest('GET', '/v1/oauth-connections', { token: owner.access_token, projectId })).body.data[0].id }, { token: owner.access_token, projectId });
    });

    it('lists, gets, updates and deletes connections over REST and GraphQL', async () => {
      oauth.user = { sub: 'tr-900', preferred_username: 'tracker' };
      const made = await connect({ provider: 'tracker_a' });
      const id = made.body.connection.id;
      const list = await client.rest('GET', '/v1/oauth-connections?limit=1', { token: owner.access_token, projectId });
      expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([id]);
      expect(list.body.next_cursor).toEqual(expect.any(String));
      const page2 = await client.gql('query($c: String) { oauthConnections(limit: 1, cursor: $c) { data { provider } nextCursor } }', { c: list.body.next_cursor }, { token: owner.access_token, projectId });
      expect(page2.data.oauthConnections).toEqual({ data: [{ provider: 'codehost_a' }], nextCursor: null });

      const updated = await client.gql('mutation($id: ID!) { updateOAuthConnection(id: $id, metadata: { workspace: "w1" }) { metadata } }', { id }, { token: owner.access_token, projectId });
      expect(updated.data.updateOAuthConnection.metadata).toEqual({ workspace: 'w1' });
      expect((await client.rest('GET', `/v1/oauth-connections/${id}`, { token: owner.access_token, projectId })).body.metadata).toEqual({ workspace: 'w1' });
      const bad = await client.rest('PATCH', `/v1/oauth-connections/${id}`, { token: owner.access_token, projectId, body: { metadata: 'x' } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details.fields[0].field).toBe('metadata');

      const stranger = await signup(client);
      expect((await client.rest('GET', `/v1/oauth-connections/${id}`, { token: stranger.access_token, projectId })).status).toBe(404);
      expect((await client.rest('GET', `/v1/oauth-connections/${id}`, { token: stranger.access_token })).status).toBe(404);

      expect((await client.rest('DELETE', `/v1/oauth-connections/${id}`, { token: owner.access_token, projectId })).status).toBe(204);
      expect((await client.rest('GET', `/v1/oauth-connections/${id}`, { token: owner.access_token, projectId })).status).toBe(404);
    });

    it('refreshes an expiring token with the rotating refresh token, and asks to reconnect when it is refused', async () => {
      oauth.user = { sub: 'gh-501', preferred_username: 'refresher' };
      const made = await connect({ provider: 'codehost_a' });
      const id = made.body.connection.id;
      const em = env.container.orm.em.fork();
      const before = await em.findOneOrFail(OAuthConnection, id);
      const oldAccess = env.container.secrets.open(before.accessTokenEnc!);
      const oldRefreshEnc = before.refreshTokenEnc!;

      // Still fresh: no refresh.
      expect(await connectionAccessToken(env.container, env.container.orm.em.fork(), id)).toBe(oldAccess);
      await em.nativeUpdate(OAuthConnection, { id }, { tokenExpiresAt: new Date(Date.now() + 5_000) });
      const grantsBefore = oauth.grants.filter((g) => g === 'refresh_token').length;
      const fresh = await connectionAccessToken(env.container, env.container.orm.em.fork(), id);
      expect(fresh).not.toBe(oldAccess);
      expect(oauth.grants.filter((g) => g === 'refresh_token').length).toBe(grantsBefore + 1);
      const after = await env.container.orm.em.fork().findOneOrFail(OAuthConnection, id);
      expect(after.refreshTokenEnc).not.toBe(oldRefreshEnc);
      expect(after.tokenExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 3_000_000);

      const forced = await client.gql('mutation($id: ID!) { refreshOAuthConnection(id: $id) { id tokenExpiresAt } }', { id }, { token: owner.access_token, projectId });
      expect(forced.errors).toBeUndefined();

      // The provider rotated the old refresh token away: using it again must end in "connect again".
      await em.nativeUpdate(OAuthConnection, { id }, { refreshTokenEnc: oldRefreshEnc });
      const refused = await client.rest('POST', `/v1/oauth-connections/${id}/refresh`, { token: owner.access_token, projectId });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('oauth_reconnect_required');
    });

    it('needs the developer role and a user session to connect', async () => {
      const em = env.container.orm.em.fork();
      const member = await em.findOneOrFail(OrganizationMember, { user: owner.user.id });
      member.role = 'viewer';
      await em.flush();
      try {
        const res = await client.rest('POST', '/v1/oauth-connections', { token: owner.access_token, projectId, body: { provider: 'codehost_a' } });
        expect(res.status).toBe(403);
        expect(res.body.error.details).toMatchObject({ required_role: 'developer' });
        const listed = await client.gql('{ oauthConnections { data { id } } }', {}, { token: owner.access_token, projectId });
        expect(listed.errors).toBeUndefined();
      } finally {
        member.role = 'owner';
        await em.flush();
      }
      // Demoted between starting and finishing: nothing is saved.
      const started = await client.rest('POST', '/v1/oauth-connections', { token: owner.access_token, projectId, body: { provider: 'codehost_a' } });
      member.role = 'viewer';
      await em.flush();
      const back = await authorize(started.body.authorization_url);
      const late = await client.rest('GET', `${back.pathname}${back.search}`);
      member.role = 'owner';
      await em.flush();
      expect(late.status).toBe(403);
      expect(late.body.error.details.required_role).toBe('developer');

      const key = await client.rest('POST', '/v1/api-keys', { token: owner.access_token, projectId, body: { name: 'k' } });
      const byKey = await client.rest('POST', '/v1/oauth-connections', { token: key.body.key, body: { provider: 'codehost_a' } });
      expect(byKey.status).toBe(403);
      expect(byKey.body.error.code).toBe('user_session_required');

      const bad = await client.rest('POST', '/v1/oauth-connections', { token: owner.access_token, projectId, body: { provider: 'chat_b', create_endpoint: true } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details.fields?.[0]?.field ?? bad.body.error.details.field).toBe('create_endpoint');
    });
  });

  describe('the issuer of the callback (RFC 9207), where the provider\'s issuer is configured', () => {
    beforeEach(() => (oauth.user = { sub: `iss-${Date.now()}`, email: uniqueEmail(), email_verified: true }));
    afterEach(() => (oauth.iss = undefined));

    it('signs in when the callback names the configured issuer', async () => {
      oauth.iss = oauth.url;
      const done = await signInFlow('codehost_b');
      expect(done.body.error ?? null).toBeNull();
      expect(done.status).toBe(200);
      expect(done.body.access_token).toEqual(expect.any(String));
    });

    it.each([
      ['names another issuer (a mix-up)', 'https://other-issuer.example'],
      ['names no issuer', undefined],
    ])('refuses a callback that %s, exchanging no code', async (_case, iss) => {
      oauth.iss = iss;
      const grants = oauth.grants.length;
      const done = await signInFlow('codehost_b');
      expect(done.status).toBe(400);
      expect(done.body.error).toMatchObject({ code: 'oauth_issuer_mismatch' });
      expect(oauth.grants.length).toBe(grants);
    });

    it('does not check `iss` for a provider without a configured issuer', async () => {
      oauth.iss = 'https://other-issuer.example';
      expect((await signInFlow('codehost_a')).status).toBe(200);
    });
  });
});
