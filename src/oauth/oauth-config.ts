import { OAUTH_PROVIDERS, type OAuthProvider } from '../common/types';

/**
 * Per-provider OAuth client settings from the environment: a provider is
 * enabled when `OAUTH_<PROVIDER>_CLIENT_ID` is set (e.g. `OAUTH_CODEHOST_A_CLIENT_ID`),
 * and then needs `_CLIENT_SECRET`, `_AUTHORIZE_URL` and `_TOKEN_URL`;
 * `_USERINFO_URL`, `_ISSUER` (then the callback's `iss` must name it, RFC 9207), `_SCOPES` (space or comma separated) and `_CLIENT_AUTH`
 * (`basic`, the default, or `post`) are optional. No provider host is built in:
 * any compliant OAuth 2 server works.
 */
export interface OAuthProviderConfig {
  provider: OAuthProvider;
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
  userinfoUrl?: string;
  /** The authorization server's issuer identifier: when set, the callback's `iss` must equal it (RFC 9207). */
  issuer?: string;
  scopes: string[];
  clientAuth: 'basic' | 'post';
}

export type OAuthProviders = Partial<Record<OAuthProvider, OAuthProviderConfig>>;

export function oauthEnvName(provider: OAuthProvider, setting: string): string {
  return `OAUTH_${provider.toUpperCase()}_${setting}`;
}

function url(env: NodeJS.ProcessEnv, name: string, required: boolean): string | undefined {
  const value = env[name]?.trim();
  if (!value) {
    if (required) throw new Error(`${name}: required when the provider's CLIENT_ID is set`);
    return undefined;
  }
  try {
    const parsed = new URL(value);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error();
  } catch {
    throw new Error(`${name}: must be an http(s) URL`);
  }
  return value;
}

/** Throws an Error whose message starts with the offending variable's name. */
export function parseOAuthProviders(env: NodeJS.ProcessEnv): OAuthProviders {
  const providers: OAuthProviders = {};
  for (const provider of OAUTH_PROVIDERS) {
    const name = (setting: string) => oauthEnvName(provider, setting);
    const clientId = env[name('CLIENT_ID')]?.trim();
    if (!clientId) continue;
    const clientSecret = env[name('CLIENT_SECRET')];
    if (!clientSecret) throw new Error(`${name('CLIENT_SECRET')}: required when ${name('CLIENT_ID')} is set`);
    const clientAuth = (env[name('CLIENT_AUTH')] || 'basic').toLowerCase();
    if (clientAuth !== 'basic' && clientAuth !== 'post') throw new Error(`${name('CLIENT_AUTH')}: must be "basic" or "post"`);
    providers[provider] = {
      provider,
      clientId,
      clientSecret,
      authorizeUrl: url(env, name('AUTHORIZE_URL'), true)!,
      tokenUrl: url(env, name('TOKEN_URL'), true)!,
      userinfoUrl: url(env, name('USERINFO_URL'), false),
      issuer: url(env, name('ISSUER'), false),
      scopes: (env[name('SCOPES')] ?? '').split(/[\s,]+/).filter(Boolean),
      clientAuth,
    };
  }
  return providers;
}
