import * as oauth from 'oauth4webapi';
import { AppError, ValidationError } from '../common/errors';
import type { OAuthProviderConfig } from './oauth-config';

/**
 * The client side of the OAuth 2 authorization-code flow with PKCE (RFC 6749, RFC 7636 S256), on
 * oauth4webapi: the callback's validation (with `OAUTH_<PROVIDER>_ISSUER`, RFC 9207's `iss` must
 * name the configured issuer: a mix-up defence), the token and refresh requests with the configured
 * client authentication, and the token responses' checks. Whatever endpoints the provider's
 * configuration names: anything compliant works. Plain-http endpoints (local servers, tests) are
 * allowed only where the configured URL is http.
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

export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) };
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

function authorizationServer(cfg: OAuthProviderConfig): oauth.AuthorizationServer {
  return {
    // Without a configured issuer the callback's `iss` cannot be checked (and is not required).
    issuer: cfg.issuer ?? new URL(cfg.authorizeUrl).origin,
    authorization_endpoint: cfg.authorizeUrl,
    token_endpoint: cfg.tokenUrl,
    userinfo_endpoint: cfg.userinfoUrl,
    authorization_response_iss_parameter_supported: cfg.issuer !== undefined,
  };
}

const client = (cfg: OAuthProviderConfig): oauth.Client => ({ client_id: cfg.clientId });

function clientAuth(cfg: OAuthProviderConfig): oauth.ClientAuth {
  return cfg.clientAuth === 'basic' ? oauth.ClientSecretBasic(cfg.clientSecret) : oauth.ClientSecretPost(cfg.clientSecret);
}

/** A time limit, and plain http only where the configured URL is http. */
function requestOptions(url: string): { signal: AbortSignal; [oauth.allowInsecureRequests]: boolean } {
  return { signal: AbortSignal.timeout(TIMEOUT_MS), [oauth.allowInsecureRequests]: url.startsWith('http:') };
}

function providerError(cfg: OAuthProviderConfig, what: string, detail?: string): AppError {
  return new AppError(502, 'oauth_provider_error', `${cfg.provider}: ${what}${detail ? ` (${detail})` : ''}.`, { provider: cfg.provider });
}

/** A failed token request: invalid_grant means the code or refresh token is no longer valid (the user starts again). */
function tokenError(cfg: OAuthProviderConfig, err: unknown): AppError {
  if (err instanceof oauth.ResponseBodyError) {
    if (err.error === 'invalid_grant') {
      return new AppError(400, 'oauth_invalid_grant', `${cfg.provider} refused the grant (invalid_grant): start the authorization again.`, { provider: cfg.provider });
    }
    return providerError(cfg, 'the token request failed', err.error);
  }
  if (err instanceof oauth.OperationProcessingError) return providerError(cfg, 'the token request failed', err.message);
  return providerError(cfg, 'the token endpoint could not be reached', (err as Error).message);
}

function tokenSet(response: oauth.TokenEndpointResponse): TokenSet {
  const expiresIn = Number(response.expires_in);
  return {
    accessToken: response.access_token,
    refreshToken: typeof response.refresh_token === 'string' ? response.refresh_token : null,
    expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? new Date(Date.now() + expiresIn * 1000) : null,
    scope: typeof response.scope === 'string' ? response.scope : null,
  };
}

/** The callback's parameters (code, state, iss) checked, then the code exchanged with our PKCE verifier. */
export async function exchangeCode(
  cfg: OAuthProviderConfig,
  p: { callback: { code?: string; state?: string; iss?: string }; redirectUri: string; verifier: string },
): Promise<TokenSet> {
  const as = authorizationServer(cfg);
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(p.callback)) if (value !== undefined && (key !== 'iss' || cfg.issuer)) params.set(key, value);
  let validated: URLSearchParams;
  try {
    validated = oauth.validateAuthResponse(as, client(cfg), params, p.callback.state ?? oauth.expectNoState);
  } catch (err) {
    throw new ValidationError(
      `${cfg.provider}: the callback did not come from the configured issuer ${cfg.issuer ?? ''} (${(err as Error).message}).`,
      { provider: cfg.provider, field: 'iss' },
      'oauth_issuer_mismatch',
    );
  }
  try {
    const response = await oauth.authorizationCodeGrantRequest(as, client(cfg), clientAuth(cfg), validated, p.redirectUri, p.verifier, requestOptions(cfg.tokenUrl));
    return tokenSet(await oauth.processAuthorizationCodeResponse(as, client(cfg), response));
  } catch (err) {
    throw tokenError(cfg, err);
  }
}

export async function refreshGrant(cfg: OAuthProviderConfig, refreshToken: string): Promise<TokenSet> {
  const as = authorizationServer(cfg);
  try {
    const response = await oauth.refreshTokenGrantRequest(as, client(cfg), clientAuth(cfg), refreshToken, requestOptions(cfg.tokenUrl));
    return tokenSet(await oauth.processRefreshTokenResponse(as, client(cfg), response));
  } catch (err) {
    throw tokenError(cfg, err);
  }
}

const text = (value: unknown): string | null => (typeof value === 'string' && value ? value : typeof value === 'number' ? String(value) : null);

/** The provider's user, from the common userinfo field names (OIDC `sub`/`preferred_username`, or `id`/`login`/`username`). */
export async function fetchUserInfo(cfg: OAuthProviderConfig, accessToken: string): Promise<ProviderUser | null> {
  if (!cfg.userinfoUrl) return null;
  let res: Response;
  try {
    res = await oauth.protectedResourceRequest(accessToken, 'GET', new URL(cfg.userinfoUrl), new Headers({ accept: 'application/json' }), null, requestOptions(cfg.userinfoUrl));
  } catch (err) {
    if (err instanceof oauth.WWWAuthenticateChallengeError) throw providerError(cfg, 'the userinfo request failed', `HTTP ${err.status}`);
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
