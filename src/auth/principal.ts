import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppContainer } from '../app/container';
import type { Principal } from '../common/request-context';

/**
 * Turns an `Authorization` header into a Principal (user session JWT or
 * project API key). Unauthenticated callers get null; services decide
 * whether that is allowed.
 */
export async function resolvePrincipal(
  _container: AppContainer,
  _em: EntityManager,
  authorization: string | undefined,
): Promise<Principal | null> {
  if (!authorization) return null;
  return null;
}
