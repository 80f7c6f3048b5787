import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import pino from 'pino';
import { createContainer } from '../../src/app/container';
import { type ApiServer, startApiServer } from '../../src/http/server';
import { OAuthClientCode } from '../../src/oauth/oauth-client-code.entity';
import { runCli, tempConfigHome } from '../cli/cli-process';
import { RecordingClient } from '../support/accounts';
import { freePort } from '../support/free-port';
import { startOAuthServer, type OAuthTestServer } from '../support/oauth-server';
import { createTestDatabase, testConfig, type TestDatabase } from '../support/test-env';

/** Client sign-in (`relay login --oauth`, the dashboard): the client's redirect URI + its own PKCE, against the local OAuth 2 test server. */
describe('OAuth sign-in for clients (loopback or dashboard redirect, one-time code)', () => {
  let env: { container: Awaited<ReturnType<typeof createContainer>>; db: TestDatabase };
  let server: ApiServer;
  let oauth: OAuthTestServer;
  let client: RecordingClient;
  let base: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    oauth = await startOAuthServer({ redirectUris: [`${base}/v1/oauth/codehost_a/callback`] });
    const db = await createTestDatabase();
    env = { db, container: await createContainer(testConfig({ DATABASE_URL: db.url, PUBLIC_BASE_URL: base, ...oauth.env('codehost_a') }), pino({ level: 'silent' })) };
    server = await startApiServer(env.container, port, '127.0.0.1');
    client = new RecordingClient(base);
  });
  afterAll(async () => {
    await server.close();
    await env.container.close();
    await env.db.drop();
    await oauth.close();
  });

  const pkce = () => {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
  };

  /** The browser: to the provider, back to the API's callback, which sends it on (302) to the CLI's loopback address. */
  async function browse(authorizationUrl: string): Promise<URL> {
    const provider = await fetch(authorizationUrl, { redirect: 'manual' });
    const callback = await fetch(provider.headers.get('location')!, { redirect: 'manual' });
    expect(callback.status).toBe(302);
    return new URL(callback.headers.get('location')!);
  }

  async function start(redirect: string, challenge: string) {
    return client.rest('POST', '/v1/oauth/codehost_a/authorize', { body: { client_redirect_uri: redirect, client_code_challenge: challenge } });
  }

  it('logs the CLI in: the browser lands on its loopback server, the CLI exchanges the code and stores the session 0600', async () => {
    oauth.user = { sub: 'cli-1', email: 'cli-oauth@example.test', email_verified: true, preferred_username: 'clio' };
    const config = tempConfigHome();
    try {
      const cli = runCli(['login', '--oauth', 'codehost_a', '--no-browser', '--api-url', base], { XDG_CONFIG_HOME: config.home });
      const [url] = await cli.waitFor(/http:\/\/\S+\/authorize\?\S+/);
      const loopback = await browse(url);
      expect(loopback.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(loopback.pathname).toBe('/callback');
      const page = await fetch(loopback);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('You can close this tab');
      expect(await cli.exited).toBe(0);
      expect(cli.stdout()).toContain(`logged in as cli-oauth@example.test at ${base}`);
      expect((fs.statSync(config.file).mode & 0o777).toString(8)).toBe('600');
      const stored = JSON.parse(fs.readFileSync(config.file, 'utf8'));
      expect(Object.keys(stored).sort()).toEqual(['access_token', 'access_token_expires_at', 'api_url', 'refresh_token']);
      const me = await client.gql('{ me { email } }', {}, { token: stored.access_token });
      expect(me.data.me.email).toBe('cli-oauth@example.test');
      // The one-time code is spent.
      expect(await env.container.orm.em.fork().count(OAuthClientCode, {})).toBe(0);
    } finally {
      config.cleanup();
    }
  });

  it('exchanges a code once, only with the verifier of its challenge, and only before it expires', async () => {
    oauth.user = { sub: 'cli-2', email: 'cli-two@example.test', email_verified: true };
    const { verifier, challenge } = pkce();
    const first = await start('http://127.0.0.1:40111/callback', challenge);
    expect(first.status).toBe(200);
    const code = (await browse(first.body.authorization_url)).searchParams.get('code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{20,}$/);

    const wrong = await client.rest('POST', '/v1/oauth/token', { body: { code, code_verifier: pkce().verifier } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('invalid_code_verifier');
    // A wrong guess burns the code too.
    expect((await client.rest('POST', '/v1/oauth/token', { body: { code, code_verifier: verifier } })).body.error.code).toBe('invalid_oauth_code');

    const again = await start('http://localhost:40111/cb', challenge);
    const code2 = (await browse(again.body.authorization_url)).searchParams.get('code')!;
    const done = await client.gql('mutation($c: String!, $v: String!) { exchangeOAuthCode(code: $c, codeVerifier: $v) { accessToken user { email } } }', { c: code2, v: verifier });
    expect(done.data.exchangeOAuthCode.user.email).toBe('cli-two@example.test');
    const reused = await client.rest('POST', '/v1/oauth/token', { body: { code: code2, code_verifier: verifier } });
    expect(reused.body.error.code).toBe('invalid_oauth_code');

    const late = await start('http://127.0.0.1:40111/callback', challenge);
    const code3 = (await browse(late.body.authorization_url)).searchParams.get('code')!;
    await env.container.orm.em.fork().nativeUpdate(OAuthClientCode, {}, { expiresAt: new Date(Date.now() - 1000) });
    expect((await client.rest('POST', '/v1/oauth/token', { body: { code: code3, code_verifier: verifier } })).body.error.code).toBe('oauth_code_expired');
  });

  it('sends the code to the dashboard callback on the public origin', async () => {
    oauth.user = { sub: 'dash-1', email: 'dash-oauth@example.test', email_verified: true };
    const { verifier, challenge } = pkce();
    const res = await start(`${base}/oauth/callback`, challenge);
    expect(res.status).toBe(200);
    const landed = await browse(res.body.authorization_url);
    expect(`${landed.origin}${landed.pathname}`).toBe(`${base}/oauth/callback`);
    const session = await client.rest('POST', '/v1/oauth/token', { body: { code: landed.searchParams.get('code'), code_verifier: verifier } });
    expect(session.status).toBe(200);
    expect(session.body.user.email).toBe('dash-oauth@example.test');
  });

  it('accepts loopback redirect URIs and the dashboard callback only, with their challenge', async () => {
    const { challenge } = pkce();
    for (const bad of ['https://evil.example/callback', 'http://127.0.0.1/callback', 'http://10.0.0.1:5000/cb', 'http://127.0.0.1.evil.example:5000/cb', 'http://user@127.0.0.1:5000/cb', 'javascript:alert(1)', 'https://evil.example/oauth/callback']) {
      const res = await start(bad, challenge);
      expect(res.status).toBe(400);
      expect(res.body.error.details.fields[0].field).toBe('client_redirect_uri');
    }
    const alone = await client.rest('POST', '/v1/oauth/codehost_a/authorize', { body: { client_redirect_uri: 'http://127.0.0.1:5000/callback' } });
    expect(alone.status).toBe(400);
    expect((await start('http://127.0.0.1:5000/callback', 'short')).status).toBe(400);
  });

  it('sends a denial on to the CLI instead of leaving it waiting', async () => {
    oauth.deny = true;
    try {
      const res = await start('http://127.0.0.1:40112/callback', pkce().challenge);
      const loopback = await browse(res.body.authorization_url);
      expect(loopback.searchParams.get('code')).toBeNull();
      expect(loopback.searchParams.get('error')).toBe('oauth_denied');
    } finally {
      oauth.deny = false;
    }
  });
});
