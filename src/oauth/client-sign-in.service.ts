import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { SessionView } from '../accounts/account.view';
import { startSession } from '../accounts/session.service';
import type { AppContainer } from '../app/container';
import { type AppError, ValidationError } from '../common/errors';
import type { RequestContext } from '../common/request-context';
import { constantTimeEqual, hashToken, randomToken } from '../common/secret-box';
import type { User } from '../users/user.entity';
import { OAuthClientCode } from './oauth-client-code.entity';

/**
 * OAuth sign-in for a client that holds its own PKCE pair: `relay login
 * --oauth` (RFC 8252 loopback redirect) and the web dashboard. The provider
 * still returns to the API's callback; for a flow a client started, the
 * callback then sends the browser on to the client's redirect URI with a
 * one-time code, which only the holder of the client's PKCE verifier can
 * exchange for a session.
 */
export const CLIENT_CODE_TTL_MS = 60_000;

/** The dashboard's page that exchanges the code (dashboard/src/pages/oauth-callback.tsx). */
const DASHBOARD_CALLBACK_PATH = '/oauth/callback';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

const isLoopback = (url: URL) => url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname) && url.port !== '';

/**
 * Where a client may ask the code to be sent: a loopback address with a port
 * (the CLI), or exactly this service's dashboard callback on its public
 * origin. Nothing else, so the code (and the session it buys) cannot be
 * redirected to a third party.
 */
export function isAllowedClientRedirect(container: AppContainer, value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password || value.includes('#')) return false;
  return isLoopback(url) || value === `${container.config.publicBaseUrl}${DASHBOARD_CALLBACK_PATH}`;
}

export const clientRedirectUri = z.string().max(500);

export const clientCodeChallenge = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be BASE64URL(SHA-256(code_verifier)), 43 characters');

export const clientTokenInput = z.object({
  code: z.string().min(1).max(200),
  code_verifier: z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/, 'must be a PKCE code verifier (RFC 7636: 43 to 128 characters)'),
});
export type ClientTokenInput = z.infer<typeof clientTokenInput>;

/** A 400 naming the field, for a redirect URI that is neither loopback nor the dashboard's callback. */
export function assertClientRedirect(container: AppContainer, value: string): void {
  if (isAllowedClientRedirect(container, value)) return;
  throw new ValidationError(
    `client_redirect_uri must be a loopback address with a port (e.g. http://127.0.0.1:53682/callback) or ${container.config.publicBaseUrl}${DASHBOARD_CALLBACK_PATH}.`,
    { fields: [{ field: 'client_redirect_uri', message: `must be a loopback address with a port or ${container.config.publicBaseUrl}${DASHBOARD_CALLBACK_PATH}` }] },
  );
}

const withQuery = (uri: string, params: Record<string, string>) => {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
};

/** Where the callback sends the browser once a client's flow signed a user in. */
export async function clientRedirectWithCode(ctx: RequestContext, flow: { redirectUri: string; codeChallenge: string }, user: User): Promise<string> {
  const code = randomToken(32);
  ctx.em.create(OAuthClientCode, { codeHash: hashToken(code), user, codeChallenge: flow.codeChallenge, expiresAt: new Date(Date.now() + CLIENT_CODE_TTL_MS) });
  // Codes nobody exchanged go when new ones are made.
  await ctx.em.nativeDelete(OAuthClientCode, { expiresAt: { $lt: new Date() } });
  await ctx.em.flush();
  return withQuery(flow.redirectUri, { code });
}

/** A client's flow failed after its state was used: tell the waiting client instead of leaving it to time out. */
export function clientRedirectWithError(redirectUri: string, err: AppError): string {
  return withQuery(redirectUri, { error: err.code, error_description: err.message });
}

/** The code (once, before it expires) and the verifier of its challenge give a session. */
export async function exchangeClientCode(ctx: RequestContext, input: ClientTokenInput): Promise<SessionView> {
  const row = await ctx.em.findOne(OAuthClientCode, { codeHash: hashToken(input.code) }, { populate: ['user'] });
  const deleted = row ? await ctx.em.nativeDelete(OAuthClientCode, { id: row.id }) : 0;
  if (!row || deleted === 0) throw new ValidationError('Unknown or already used code: sign in again.', { field: 'code' }, 'invalid_oauth_code');
  if (row.expiresAt.getTime() <= Date.now()) throw new ValidationError('This code expired: sign in again.', { field: 'code' }, 'oauth_code_expired');
  const challenge = createHash('sha256').update(input.code_verifier).digest('base64url');
  if (!constantTimeEqual(challenge, row.codeChallenge)) {
    throw new ValidationError('The code verifier does not match the challenge this sign-in started with.', { field: 'code_verifier' }, 'invalid_code_verifier');
  }
  return startSession(ctx.em, ctx.container, row.user);
}
