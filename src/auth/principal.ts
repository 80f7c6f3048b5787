import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey } from '../api-keys/api-key.entity';
import type { AppContainer } from '../app/container';
import { UnauthenticatedError } from '../common/errors';
import type { Principal } from '../common/request-context';
import { hashToken } from '../common/secret-box';
import { User } from '../users/user.entity';
import { verifyAccessToken } from './tokens';

export const API_KEY_PREFIX = 'svc_';

export type PrincipalResult = { principal: Principal | null; error?: UnauthenticatedError };

/**
 * Turns an `Authorization: Bearer …` header into a Principal: a project API
 * key (`svc_…`, looked up by hash, not revoked) or a user session JWT. A
 * missing header gives no principal; a bad one gives the 401 to raise when
 * an operation needs authentication (public operations ignore it).
 */
export async function resolvePrincipal(container: AppContainer, em: EntityManager, authorization: string | undefined): Promise<PrincipalResult> {
  if (!authorization) return { principal: null };
  const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  if (!match) return { principal: null, error: new UnauthenticatedError('Authorization must be "Bearer <token>".', 'invalid_authorization_header') };
  const token = match[1];

  if (token.startsWith(API_KEY_PREFIX)) {
    const principal = await apiKeyPrincipal(em, { keyHash: hashToken(token) });
    return principal ? { principal } : { principal: null, error: new UnauthenticatedError('The API key is invalid or revoked.', 'invalid_api_key') };
  }

  const check = await verifyAccessToken(container.config, token);
  if (!check.ok) {
    return check.reason === 'expired'
      ? { principal: null, error: new UnauthenticatedError('The access token has expired: refresh it with POST /v1/auth/refresh.', 'token_expired') }
      : { principal: null, error: new UnauthenticatedError('The access token is invalid.', 'invalid_token') };
  }
  const exists = await em.count(User, { id: check.userId });
  if (!exists) return { principal: null, error: new UnauthenticatedError('The user of this token no longer exists.', 'invalid_token') };
  return { principal: { kind: 'user', userId: check.userId, sessionId: check.sessionId, tokenExpiresAt: check.expiresAt } };
}

/** The principal of a stored API key, or null when there is none or it is revoked. */
export async function apiKeyPrincipal(em: EntityManager, where: { id: string } | { keyHash: string }): Promise<Principal | null> {
  const key = await em.findOne(ApiKey, where, { populate: ['project'] });
  if (!key || key.revokedAt) return null;
  return { kind: 'api_key', apiKeyId: key.id, projectId: key.project.id, organizationId: key.project.organization.id };
}
