import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../common/errors';
import type { OAuthProviderConfig } from './oauth-config';

/**
 * The client side of the OAuth 2 authorization-code flow with PKCE (RFC 6749,
 * RFC 7636 S256), against whatever endpoints the provider's configuration
 * names. No provider-specific code: anything compliant works.
 */
export interface TokenSet {
  accessToken: string;
  refreshToken: string | null;
  expiresAt: Date | null;
  /** Granted scopes as the provider reported them (space separated), else null. */
  scope: string | null;
}

export interface ProviderUser {
  id: string;
  username: string | null;
  email: string | null;
  emailVerified: boolean;
}

const TIMEOUT_MS = 10_000;

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizeUrl(cfg: OAuthProviderConfig, p: { redirectUri: string; state: string; challenge: string; scopes: string[] }): string {
  const url = new URL(cfg.authorizeUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', cfg.clientId);
  url.searchParams.set('redirect_uri', p.redirectUri);
  url.searchParams.set('state', p.state);
  url.searchParams.set('code_challenge', p.challenge);
  url.searchParams.set('code_challenge_method', 'S256');
  if (p.scopes.length) url.searchParams.set('scope', p.scopes.join(' '));
  return url.toString();
}

function providerError(cfg: OAuthProviderConfig, what: string, detail?: string): AppError {
  return new AppError(502, 'oauth_provider_error', `${cfg.provider}: ${what}${detail ? ` (${detail})` : ''}.`, { provider: cfg.provider });
}

async function tokenRequest(cfg: OAuthProviderConfig, params: Record<string, string>): Promise<TokenSet> {
  const body = new URLSearchParams(params);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (cfg.clientAuth === 'basic') {
    // RFC 6749 §2.3.1: the client id and secret are form-encoded before Basic encoding.
    const user = encodeURIComponent(cfg.clientId);
    const pass = encodeURIComponent(cfg.clientSecret);
    headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  } else {
    body.set('client_id', cfg.clientId);
    body.set('client_secret', cfg.clientSecret);
  }
  let res: Response;
  try {
    res = await fetch(cfg.tokenUrl, { method: 'POST', headers, body, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    throw providerError(cfg, 'the token endpoint could not be reached', (err as Error).message);
  }
  const json = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (!res.ok || !json || typeof json.access_token !== 'string') {
    const code = typeof json?.error === 'string' ? json.error : `HTTP ${res.status}`;
    // invalid_grant: the code or refresh token is no longer valid; the user must go through the flow again.
    if (code === 'invalid_grant') {
      throw new AppError(400, 'oauth_invalid_grant', `${cfg.provider} refused the grant (invalid_grant): start the authorization again.`, { provider: cfg.provider });
    }
    throw providerError(cfg, 'the token request failed', code);
  }
  const expiresIn = Number(json.expires_in);
  return {
    accessToken: json.access_token,
    refreshToken: typeof json.refresh_token === 'string' ? json.refresh_token : null,
    expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(Date.now() + expiresIn * 1000) : null,
    scope: typeof json.scope === 'string' ? json.scope : null,
  };
}

export function exchangeCode(cfg: OAuthProviderConfig, p: { code: string; redirectUri: string; verifier: string }): Promise<TokenSet> {
  return tokenRequest(cfg, { grant_type: 'authorization_code', code: p.code, redirect_uri: p.redirectUri, code_verifier: p.verifier });
}

export function refreshGrant(cfg: OAuthProviderConfig, refreshToken: string): Promise<TokenSet> {
  return tokenRequest(cfg, { grant_type: 'refresh_token', refresh_token: refreshToken });
}

const text = (value: unknown): string | null => (typeof value === 'string' && value ? value : typeof value === 'number' ? String(value) : null);

/** The provider's user, from the common userinfo field names (OIDC `sub`/`preferred_username`, or `id`/`login`/`username`). */
export async function fetchUserInfo(cfg: OAuthProviderConfig, accessToken: string): Promise<ProviderUser | null> {
  if (!cfg.userinfoUrl) return null;
  let res: Response;
  try {
    res = await fetch(cfg.userinfoUrl, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw providerError(cfg, 'the userinfo endpoint could not be reached', (err as Error).message);
  }
  const json = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  const id = text(json?.sub) ?? text(json?.id);
  if (!res.ok || !json || !id) throw providerError(cfg, 'the userinfo request failed', `HTTP ${res.status}`);
  return {
    id,
    username: text(json.preferred_username) ?? text(json.login) ?? text(json.username) ?? text(json.name),
    email: text(json.email)?.toLowerCase() ?? null,
    emailVerified: json.email_verified === true,
  };
}
