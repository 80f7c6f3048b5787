import { ApiClient, ApiError, keyLabel, SESSION_FIELDS, type SessionPayload, storedSession } from './api-client';
import { restClient, unwrap } from './api/rest-client';
import { CliError, EXIT, notLoggedIn } from './cli-errors';
import { type ConfigStore, profileStore, resolveApiUrl } from './config-store';
import { pkcePair, startLoopback } from './oauth-loopback';
import { tryOpenBrowser } from './open-browser';
import { ask } from './prompt';

export interface LoginOptions {
  apiUrl?: string;
  email?: string;
  password?: string;
  oauth?: string;
  /** `--no-browser`: print the authorization URL only. */
  browser?: boolean;
  /** A project API key (`svc_…`) instead of a user session. */
  apiKey?: string;
  profile?: string;
}

const profileNote = (store: ConfigStore) => (store.profile === 'default' ? '' : ` (profile ${store.profile})`);

/** `relay login`: email + password (flags, RELAY_EMAIL / RELAY_PASSWORD, or prompts), `--oauth <provider>`, or `--api-key svc_…`. */
export async function login(opts: LoginOptions, store = profileStore(opts)): Promise<void> {
  const apiUrl = resolveApiUrl(opts.apiUrl, store.read());
  if (opts.apiKey !== undefined) return apiKeyLogin(apiUrl, opts.apiKey, store);
  const client = new ApiClient(apiUrl);
  const session = opts.oauth ? await oauthSession(client, opts.oauth, opts.browser !== false) : await passwordSession(client, opts);
  store.write(storedSession(apiUrl, session));
  process.stdout.write(`logged in as ${session.user.email} at ${apiUrl}${profileNote(store)}\n`);
}

/** `--api-key svc_…` (CI, containers): checked with the API (a project-scoped read), then kept instead of a session. */
async function apiKeyLogin(apiUrl: string, key: string, store: ConfigStore): Promise<void> {
  if (!/^svc_\S+$/.test(key)) throw new CliError('invalid API key: a project API key starts with svc_ (create one in the dashboard, API keys)', EXIT.usage);
  await checkApiKey(apiUrl, key);
  store.write({ api_url: apiUrl, api_key: key });
  process.stdout.write(`logged in with API key ${keyLabel(key)} at ${apiUrl}${profileNote(store)}\n`);
}

async function checkApiKey(apiUrl: string, key: string): Promise<number> {
  try {
    const { endpoints } = await new ApiClient(apiUrl, undefined, fetch, { RELAY_API_KEY: key }).request<{ endpoints: { data: Array<{ system: boolean }> } }>(
      'query { endpoints(limit: 200) { data { system } } }',
    );
    // The sources a sender can post to: the project's built-in operational-events source is not one.
    return endpoints.data.filter((e) => !e.system).length;
  } catch (err) {
    if (err instanceof ApiError) throw new CliError(`login failed: ${err.message}`);
    throw err;
  }
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

/** `relay logout`: ends the session on the API (best effort) and forgets the tokens. */
export async function logout(opts: { profile?: string } = {}, store = profileStore(opts)): Promise<void> {
  const config = store.read();
  if (config?.api_key) {
    store.clearSession();
    process.stdout.write(`logged out of ${config.api_url}${profileNote(store)}; the API key ${keyLabel(config.api_key)} stays valid until revoked\n`);
    return;
  }
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
  process.stdout.write(`logged out of ${config.api_url}${profileNote(store)}\n`);
}

/** `relay whoami`: who the stored session belongs to (checked with the API, refreshing if needed). */
export async function whoami(opts: { apiUrl?: string; profile?: string }, store = profileStore(opts)): Promise<void> {
  const config = store.read();
  const envKey = process.env.RELAY_API_KEY;
  const key = envKey ?? config?.api_key;
  if (key) {
    const apiUrl = resolveApiUrl(opts.apiUrl, config);
    const sources = await checkApiKey(apiUrl, key);
    process.stdout.write(`API key ${keyLabel(key)}${envKey ? ' (RELAY_API_KEY)' : ''} at ${apiUrl}${profileNote(store)}: ${sources} source${sources === 1 ? '' : 's'}\n`);
    return;
  }
  if (!config?.access_token) throw notLoggedIn();
  const apiUrl = resolveApiUrl(opts.apiUrl, config);
  const client = new ApiClient(apiUrl, store);
  const me = unwrap(await restClient(apiUrl, (o) => client.accessToken(o)).GET('/v1/me'));
  process.stdout.write(`${me.email}${me.name ? ` (${me.name})` : ''} at ${apiUrl}${profileNote(store)}\n`);
}
