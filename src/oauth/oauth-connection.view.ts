import { z } from 'zod';
import { OAUTH_PROVIDERS } from '../common/types';
import type { OAuthConnection } from './oauth-connection.entity';

/** An OAuth connection as shown: never its tokens, only whether they exist and when the access token expires. */
export const oauthConnectionView = z.object({
  id: z.uuid(),
  project_id: z.uuid(),
  provider: z.enum(OAUTH_PROVIDERS),
  provider_user_id: z.string().nullable(),
  provider_username: z.string().nullable(),
  scopes: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  has_refresh_token: z.boolean(),
  token_expires_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type OAuthConnectionView = z.infer<typeof oauthConnectionView>;

/** Where to send the user's browser to authorize; the callback must come back before `expires_at`. */
export const authorizationView = z.object({
  authorization_url: z.string(),
  state: z.string(),
  expires_at: z.iso.datetime(),
});
export type AuthorizationView = z.infer<typeof authorizationView>;

/** An integration endpoint created by connecting a code host: its signing secret is shown this once. */
export const integrationEndpointView = z.object({
  id: z.uuid(),
  slug: z.string(),
  url: z.string(),
  signing_secret: z.string(),
});
export type IntegrationEndpointView = z.infer<typeof integrationEndpointView>;

export const connectionResultView = z.object({
  connection: oauthConnectionView,
  endpoint: integrationEndpointView.nullable(),
});
export type ConnectionResultView = z.infer<typeof connectionResultView>;

export function toOAuthConnectionView(connection: OAuthConnection): OAuthConnectionView {
  return {
    id: connection.id,
    project_id: connection.project.id,
    provider: connection.provider,
    provider_user_id: connection.providerUserId ?? null,
    provider_username: connection.providerUsername ?? null,
    scopes: connection.scopes,
    metadata: connection.metadata,
    has_refresh_token: Boolean(connection.refreshTokenEnc),
    token_expires_at: connection.tokenExpiresAt?.toISOString() ?? null,
    created_at: connection.createdAt.toISOString(),
    updated_at: connection.updatedAt.toISOString(),
  };
}
