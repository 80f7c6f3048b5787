import { jwtVerify, SignJWT } from 'jose';
import type { Config } from '../config/config';

const ISSUER = 'webhook-relay';
const AUDIENCE = 'relay-api';

function key(config: Pick<Config, 'RELAY_JWT_SECRET'>): Uint8Array {
  if (!config.RELAY_JWT_SECRET) throw new Error('RELAY_JWT_SECRET is not set');
  return new TextEncoder().encode(config.RELAY_JWT_SECRET);
}

/** A short-lived user session JWT (HS256); `sub` is the user id, `sid` the session (refresh-token family) it came from. */
export async function issueAccessToken(
  config: Pick<Config, 'RELAY_JWT_SECRET' | 'RELAY_ACCESS_TOKEN_TTL_SECONDS'>,
  userId: string,
  sessionId?: string,
): Promise<{ token: string; expiresAt: Date }> {
  const expiresAt = new Date(Date.now() + config.RELAY_ACCESS_TOKEN_TTL_SECONDS * 1000);
  const token = await new SignJWT({ typ: 'access', ...(sessionId ? { sid: sessionId } : {}) })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(userId)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(key(config));
  return { token, expiresAt };
}

export type AccessTokenCheck = { ok: true; userId: string; sessionId?: string; expiresAt: Date } | { ok: false; reason: 'expired' | 'invalid' };

export async function verifyAccessToken(config: Pick<Config, 'RELAY_JWT_SECRET'>, token: string): Promise<AccessTokenCheck> {
  try {
    const { payload } = await jwtVerify(token, key(config), { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
    if (payload.typ !== 'access' || typeof payload.sub !== 'string') return { ok: false, reason: 'invalid' };
    const sessionId = typeof payload.sid === 'string' ? payload.sid : undefined;
    return { ok: true, userId: payload.sub, sessionId, expiresAt: new Date((payload.exp ?? 0) * 1000) };
  } catch (err) {
    return { ok: false, reason: (err as { code?: string }).code === 'ERR_JWT_EXPIRED' ? 'expired' : 'invalid' };
  }
}
