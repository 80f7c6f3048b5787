import { spawn } from 'node:child_process';
import { ApiClient, ApiError, SESSION_FIELDS, type SessionPayload, storedSession } from './api-client';
import { CliError, notLoggedIn } from './cli-errors';
import { ConfigStore, resolveApiUrl } from './config-store';
import { pkcePair, startLoopback } from './oauth-loopback';
import { ask } from './prompt';

export interface LoginOptions {
  apiUrl?: string;
  email?: string;
  password?: string;
  oauth?: string;
  /** `--no-browser`: print the authorization URL only. */
  browser?: boolean;
}

/** `relay login`: email + password (flags, RELAY_EMAIL / RELAY_PASSWORD, or prompts), or `--oauth <provider>`. */
export async function login(opts: LoginOptions, store = new ConfigStore()): Promise<void> {
  const apiUrl = resolveApiUrl(opts.apiUrl, store.read());
  const client = new ApiClient(apiUrl);
  const session = opts.oauth ? await oauthSession(client, opts.oauth, opts.browser !== false) : await passwordSession(client, opts);
  store.write(storedSession(apiUrl, session));
  process.stdout.write(`logged in as ${session.user.email} at ${apiUrl}\n`);
}

async function passwordSession(client: ApiClient, opts: LoginOptions): Promise<SessionPayload> {
  const email = opts.email ?? process.env.RELAY_EMAIL ?? (await ask('email: '));
  const password = opts.password ?? process.env.RELAY_PASSWORD ?? (await ask('password: ', { hidden: true }));
  if (!email || !password) throw new CliError('login needs an email and a password (or --oauth <provider>)');
  try {
    return (await client.anonymous<{ login: SessionPayload }>(`mutation Login($e: String!, $p: String!) { login(email: $e, password: $p) { ${SESSION_FIELDS} } }`, { e: email, p: password })).login;
  } catch (err) {
    if (err instanceof ApiError) throw new CliError(`login failed: ${err.message}`);
    throw err;
  }
}

/**
 * The loopback flow (RFC 8252 + PKCE): the API's OAuth callback sends the
 * browser to our 127.0.0.1 server with a one-time code, which we exchange,
 * with our verifier, for a session.
 */
async function oauthSession(client: ApiClient, provider: string, openBrowser: boolean): Promise<SessionPayload> {
  const { verifier, challenge } = pkcePair();
  const loopback = await startLoopback();
  try {
    const { startOAuthSignIn } = await client.anonymous<{ startOAuthSignIn: { authorizationUrl: string } }>(
      'mutation Start($p: String!, $r: String!, $c: String!) { startOAuthSignIn(provider: $p, clientRedirectUri: $r, clientCodeChallenge: $c) { authorizationUrl } }',
      { p: provider, r: loopback.redirectUri, c: challenge },
    );
    process.stdout.write(`Open this URL in your browser to sign in with ${provider}:\n\n  ${startOAuthSignIn.authorizationUrl}\n\nWaiting for the browser…\n`);
    if (openBrowser) tryOpenBrowser(startOAuthSignIn.authorizationUrl);
    const code = await loopback.code;
    return (
      await client.anonymous<{ exchangeOAuthCode: SessionPayload }>(
        `mutation Exchange($c: String!, $v: String!) { exchangeOAuthCode(code: $c, codeVerifier: $v) { ${SESSION_FIELDS} } }`,
        { c: code, v: verifier },
      )
    ).exchangeOAuthCode;
  } catch (err) {
    if (err instanceof ApiError) throw new CliError(`OAuth sign-in failed: ${err.message}`);
    throw err;
  } finally {
    loopback.close();
  }
}

function tryOpenBrowser(url: string): void {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No browser here: the printed URL is enough.
  }
}

/** `relay logout`: ends the session on the API (best effort) and forgets the tokens. */
export async function logout(store = new ConfigStore()): Promise<void> {
  const config = store.read();
  if (!config?.refresh_token) {
    process.stdout.write('not logged in\n');
    return;
  }
  try {
    await new ApiClient(config.api_url).anonymous('mutation Logout($t: String!) { logout(refreshToken: $t) }', { t: config.refresh_token });
  } catch (err) {
    process.stderr.write(`relay: the API did not end the session (${(err as Error).message}); the local tokens are removed anyway\n`);
  }
  store.clearSession();
  process.stdout.write(`logged out of ${config.api_url}\n`);
}

/** `relay whoami`: who the stored session belongs to (checked with the API, refreshing if needed). */
export async function whoami(opts: { apiUrl?: string }, store = new ConfigStore()): Promise<void> {
  const config = store.read();
  if (!config?.access_token) throw notLoggedIn();
  const apiUrl = resolveApiUrl(opts.apiUrl, config);
  const { me } = await new ApiClient(apiUrl, store).request<{ me: { email: string; name: string | null } }>('query { me { email name } }');
  process.stdout.write(`${me.email}${me.name ? ` (${me.name})` : ''} at ${apiUrl}\n`);
}
