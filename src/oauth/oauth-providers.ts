import type { AppContainer } from '../app/container';
import { ValidationError } from '../common/errors';
import type { OAuthProvider } from '../common/types';
import { oauthEnvName, type OAuthProviderConfig } from './oauth-config';

/** The configured provider, or a 400 that names the variables to set. */
export function providerConfig(container: AppContainer, provider: OAuthProvider): OAuthProviderConfig {
  const cfg = container.config.oauthProviders[provider];
  if (!cfg) {
    throw new ValidationError(
      `OAuth with ${provider} is not configured on this server: set ${oauthEnvName(provider, 'CLIENT_ID')}, _CLIENT_SECRET, _AUTHORIZE_URL and _TOKEN_URL.`,
      { field: 'provider', provider },
      'oauth_provider_not_configured',
    );
  }
  return cfg;
}

/** The callback registered with every provider: `{PUBLIC_BASE_URL}/v1/oauth/{provider}/callback`. */
export function redirectUri(container: AppContainer, provider: OAuthProvider): string {
  return `${container.config.publicBaseUrl}/v1/oauth/${provider}/callback`;
}
