import type { EntityManager } from '@mikro-orm/postgresql';

/** PostgreSQL's `query_canceled`, which `statement_timeout` raises. */
const QUERY_CANCELED = '57014';

/**
 * Runs `query` in a transaction whose statements give up after `timeoutMs`: a query a request
 * can make expensive (a broad search, a bulk action over a large project) answers `timedOut()`,
 * a clear error, instead of holding a connection for as long as it takes.
 */
export async function withStatementTimeout<T>(em: EntityManager, timeoutMs: number, query: (em: EntityManager) => Promise<T>, timedOut: () => Error): Promise<T> {
  try {
    return await em.transactional(async (tx) => {
      await tx.execute(`set local statement_timeout = ${Math.trunc(timeoutMs)}`);
      return query(tx);
    });
  } catch (err) {
    if ((err as { code?: string }).code === QUERY_CANCELED) throw timedOut();
    throw err;
  }
}
