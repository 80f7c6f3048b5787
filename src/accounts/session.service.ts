import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppContainer } from '../app/container';
import { RefreshToken } from '../auth/refresh-token.entity';
import { issueAccessToken } from '../auth/tokens';
import { UnauthenticatedError } from '../common/errors';
import { uuidv7 } from '../common/ids';
import { hashToken, hmacHex, randomToken } from '../common/secret-box';
import { notifyAccessChanged } from '../subscriptions/subscription-access';
import { User } from '../users/user.entity';
import { type SessionView, toUserView } from './account.view';

/**
 * Sessions: a short-lived access JWT (`sub` = user id) plus a rotating refresh
 * token. Only the refresh token's SHA-256 is stored. Every refresh spends the
 * presented token and mints the next one of the same family; presenting a
 * spent token again means it leaked, so the whole family is revoked, except
 * within RELAY_REFRESH_REUSE_GRACE_SECONDS of its rotation while its successor
 * is still unspent: a client that lost the answer (a reload, a cut connection)
 * or a second tab that read the token a moment before it was rotated then gets
 * that same successor again (docs/accounts.md).
 */
export const REFRESH_TOKEN_PREFIX = 'rt_';

/**
 * The token that rotating `spent` mints: an HMAC of it under the server's secret, so the same
 * successor can be handed out again within the grace without being stored, and nobody without
 * the secret can derive it.
 */
function successorOf(container: AppContainer, spent: string): string {
  const secret = container.config.RELAY_JWT_SECRET;
  if (!secret) throw new Error('RELAY_JWT_SECRET is not set');
  const mac = hmacHex(secret, 'relay.refresh-successor:', spent);
  return `${REFRESH_TOKEN_PREFIX}${Buffer.from(mac, 'hex').toString('base64url')}`;
}

async function mintRefreshToken(em: EntityManager, container: AppContainer, user: User, familyId: string, token: string): Promise<void> {
  em.create(RefreshToken, {
    user,
    tokenHash: hashToken(token),
    familyId,
    expiresAt: new Date(Date.now() + container.config.RELAY_REFRESH_TOKEN_TTL_SECONDS * 1000),
  });
  await em.flush();
}

async function sessionView(container: AppContainer, user: User, familyId: string, refreshToken: string): Promise<SessionView> {
  const access = await issueAccessToken(container.config, user.id, familyId);
  return {
    access_token: access.token,
    token_type: 'Bearer',
    expires_in: container.config.RELAY_ACCESS_TOKEN_TTL_SECONDS,
    refresh_token: refreshToken,
    user: toUserView(user),
  };
}

/**
 * A new session (new refresh-token family) for a user who just proved who they are. With
 * `verifiedPasswordHash` (a login), the session is only made while that hash is still the user's
 * password, checked under the session lock: a login with the old password that overlaps a password
 * change either ends with the change's revocation or is refused.
 */
export async function startSession(em: EntityManager, container: AppContainer, user: User, verifiedPasswordHash?: string): Promise<SessionView> {
  const familyId = uuidv7();
  const refreshToken = `${REFRESH_TOKEN_PREFIX}${randomToken(32)}`;
  await withSessionLock(em, user.id, async (tem) => {
    if (verifiedPasswordHash !== undefined) {
      const current = await tem.findOneOrFail(User, user.id, { fields: ['passwordHash'], refresh: true });
      if (current.passwordHash !== verifiedPasswordHash) throw new UnauthenticatedError('Email or password is incorrect.', 'invalid_credentials');
    }
    await mintRefreshToken(tem, container, user, familyId, refreshToken);
  });
  return sessionView(container, user, familyId, refreshToken);
}

/**
 * Runs `work` in a transaction holding the user's session lock. Every change
 * to a user's refresh tokens (rotation, reuse revocation, logout, revoking
 * all of them on a password change or a removal) takes it, so a revocation
 * cannot miss a token that a concurrent rotation is minting: it runs after
 * that rotation commits, and its UPDATE then sees the new row; a rotation
 * that waited for it finds its token revoked.
 */
export function withSessionLock<T>(em: EntityManager, userId: string, work: (tem: EntityManager) => Promise<T>): Promise<T> {
  return em.transactional(async (tem) => {
    await tem.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`refresh-user:${userId}`]);
    return work(tem);
  });
}

/** Revokes every token of the family; subscriptions opened with its access tokens close (at commit). */
async function revokeFamily(em: EntityManager, familyId: string): Promise<void> {
  await em.nativeUpdate(RefreshToken, { familyId, revokedAt: null }, { revokedAt: new Date() });
  await notifyAccessChanged(em, `session:${familyId}`);
}

/**
 * Revokes every live refresh token of the user and closes the subscriptions opened with their
 * sessions' access tokens (at commit). Call under `withSessionLock`, in the transaction that makes
 * the change that ends the sessions.
 */
export async function revokeUserSessions(em: EntityManager, userId: string): Promise<void> {
  const families: Array<{ family_id: string }> = await em.execute(
    `with revoked as (update refresh_tokens set revoked_at = now() where user_id = ? and revoked_at is null returning family_id)
     select distinct family_id from revoked`,
    [userId],
  );
  for (const { family_id } of families) await notifyAccessChanged(em, `session:${family_id}`);
}

/**
 * A spent token presented again is forgiven when it was rotated less than the grace ago and the
 * successor that rotation minted is still live (unspent, not revoked by logout, not expired):
 * the presenter is then the same client or one of its tabs, and gets that successor again.
 */
async function withinGrace(em: EntityManager, container: AppContainer, spent: RefreshToken, successor: string): Promise<boolean> {
  const graceMs = container.config.RELAY_REFRESH_REUSE_GRACE_SECONDS * 1000;
  if (!spent.revokedAt || Date.now() - spent.revokedAt.getTime() > graceMs) return false;
  const next = await em.findOne(RefreshToken, { tokenHash: hashToken(successor), familyId: spent.familyId, revokedAt: null, expiresAt: { $gt: new Date() } });
  return next !== null;
}

export async function rotateSession(em: EntityManager, container: AppContainer, presented: string): Promise<SessionView> {
  const found = await em.findOne(RefreshToken, { tokenHash: hashToken(presented) }, { fields: ['familyId', 'user'] });
  if (!found) throw new UnauthenticatedError('The refresh token is invalid: log in again.', 'invalid_refresh_token');
  const outcome = await withSessionLock(em, found.user.id, async (tem) => {
    // Read again under the lock: a concurrent refresh may have spent it meanwhile.
    const stored = await tem.findOneOrFail(RefreshToken, found.id, { populate: ['user'], refresh: true });
    if (stored.expiresAt.getTime() <= Date.now()) return 'expired' as const;
    const successor = successorOf(container, presented);
    if (stored.revokedAt) {
      if (await withinGrace(tem, container, stored, successor)) return sessionView(container, stored.user, stored.familyId, successor);
      await revokeFamily(tem, stored.familyId);
      return 'reused' as const;
    }
    stored.revokedAt = new Date();
    await mintRefreshToken(tem, container, stored.user, stored.familyId, successor);
    return sessionView(container, stored.user, stored.familyId, successor);
  });
  if (outcome === 'expired') throw new UnauthenticatedError('The refresh token has expired: log in again.', 'refresh_token_expired');
  if (outcome === 'reused') {
    throw new UnauthenticatedError('This refresh token was already used, so every session it belongs to has been revoked: log in again.', 'refresh_token_reused');
  }
  return outcome;
}

/** Logout: the presented refresh token's family stops working. Unknown tokens are ignored (logout is idempotent). */
export async function endSession(em: EntityManager, presented: string): Promise<void> {
  const stored = await em.findOne(RefreshToken, { tokenHash: hashToken(presented) }, { fields: ['familyId', 'user'] });
  if (stored) await withSessionLock(em, stored.user.id, (tem) => revokeFamily(tem, stored.familyId));
}
