import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppContainer } from '../app/container';
import { RefreshToken } from '../auth/refresh-token.entity';
import { issueAccessToken } from '../auth/tokens';
import { UnauthenticatedError } from '../common/errors';
import { uuidv7 } from '../common/ids';
import { hashToken, randomToken } from '../common/secret-box';
import { notifyAccessChanged } from '../subscriptions/subscription-access';
import { type User } from '../users/user.entity';
import { type SessionView, toUserView } from './account.view';

/**
 * Sessions: a short-lived access JWT (`sub` = user id) plus a rotating refresh
 * token. Only the refresh token's SHA-256 is stored. Every refresh spends the
 * presented token and mints the next one of the same family; presenting a
 * spent token again means it leaked, so the whole family is revoked.
 */
export const REFRESH_TOKEN_PREFIX = 'rt_';

async function mintRefreshToken(em: EntityManager, container: AppContainer, user: User, familyId: string): Promise<string> {
  const token = `${REFRESH_TOKEN_PREFIX}${randomToken(32)}`;
  em.create(RefreshToken, {
    user,
    tokenHash: hashToken(token),
    familyId,
    expiresAt: new Date(Date.now() + container.config.RELAY_REFRESH_TOKEN_TTL_SECONDS * 1000),
  });
  await em.flush();
  return token;
}

async function sessionFor(em: EntityManager, container: AppContainer, user: User, familyId: string): Promise<SessionView> {
  const refreshToken = await mintRefreshToken(em, container, user, familyId);
  const access = await issueAccessToken(container.config, user.id, familyId);
  return {
    access_token: access.token,
    token_type: 'Bearer',
    expires_in: container.config.RELAY_ACCESS_TOKEN_TTL_SECONDS,
    refresh_token: refreshToken,
    user: toUserView(user),
  };
}

/** A new session (new refresh-token family) for a user who just proved who they are. */
export function startSession(em: EntityManager, container: AppContainer, user: User): Promise<SessionView> {
  return sessionFor(em, container, user, uuidv7());
}

/**
 * Runs `work` in a transaction holding the family's advisory lock. Every
 * change to a family (rotation, reuse revocation, logout) takes it, so a
 * revocation cannot miss a token that a concurrent rotation is minting: it
 * runs after that rotation commits, and its UPDATE then sees the new row.
 */
function withFamilyLock<T>(em: EntityManager, familyId: string, work: (tem: EntityManager) => Promise<T>): Promise<T> {
  return em.transactional(async (tem) => {
    await tem.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`refresh-family:${familyId}`]);
    return work(tem);
  });
}

/** Revokes every token of the family; subscriptions opened with its access tokens close (at commit). */
async function revokeFamily(em: EntityManager, familyId: string): Promise<void> {
  await em.nativeUpdate(RefreshToken, { familyId, revokedAt: null }, { revokedAt: new Date() });
  await notifyAccessChanged(em, `session:${familyId}`);
}

export async function rotateSession(em: EntityManager, container: AppContainer, presented: string): Promise<SessionView> {
  const found = await em.findOne(RefreshToken, { tokenHash: hashToken(presented) }, { fields: ['familyId'] });
  if (!found) throw new UnauthenticatedError('The refresh token is invalid: log in again.', 'invalid_refresh_token');
  const outcome = await withFamilyLock(em, found.familyId, async (tem) => {
    // Read again under the lock: a concurrent refresh may have spent it meanwhile.
    const stored = await tem.findOneOrFail(RefreshToken, found.id, { populate: ['user'], refresh: true });
    if (stored.expiresAt.getTime() <= Date.now()) return 'expired' as const;
    if (stored.revokedAt) {
      await revokeFamily(tem, stored.familyId);
      return 'reused' as const;
    }
    stored.revokedAt = new Date();
    return sessionFor(tem, container, stored.user, stored.familyId);
  });
  if (outcome === 'expired') throw new UnauthenticatedError('The refresh token has expired: log in again.', 'refresh_token_expired');
  if (outcome === 'reused') {
    throw new UnauthenticatedError('This refresh token was already used, so every session it belongs to has been revoked: log in again.', 'refresh_token_reused');
  }
  return outcome;
}

/** Logout: the presented refresh token's family stops working. Unknown tokens are ignored (logout is idempotent). */
export async function endSession(em: EntityManager, presented: string): Promise<void> {
  const stored = await em.findOne(RefreshToken, { tokenHash: hashToken(presented) }, { fields: ['familyId'] });
  if (stored) await withFamilyLock(em, stored.familyId, (tem) => revokeFamily(tem, stored.familyId));
}
