import type { Context, Middleware, Next } from 'koa';
import { LRUCache } from 'lru-cache';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiKey } from '../api-keys/api-key.entity';
import type { AppContainer } from '../app/container';
import { API_KEY_PREFIX } from '../auth/principal';
import { verifyAccessToken } from '../auth/tokens';
import { RateLimitedError } from '../common/errors';
import { hashToken } from '../common/secret-box';

/**
 * Management API rate limit (`/v1/*` and `/graphql` over HTTP): at most
 * RELAY_API_RATE_LIMIT units per credential in each window of
 * RELAY_API_RATE_WINDOW_SECONDS (a fixed window that starts at the credential's
 * first request). The credential is the API key (by id), else the session's
 * user (the verified JWT `sub`), else the client IP. Counting is
 * rate-limiter-flexible's: one row per credential in an UNLOGGED PostgreSQL
 * table, so every API process shares the budget; once a credential is over it,
 * this process refuses it from memory until its window ends (no query per
 * refused request); while PostgreSQL is unreachable an in-process limiter with
 * the same budget stands in. Over the limit: 429, `Retry-After` (seconds until
 * the window ends) and the usual error body.
 *
 * One rule for both transports: a request costs one unit for every started
 * RELAY_API_ROWS_PER_UNIT (50, the default page size) page rows it returned,
 * at least one. One unit is charged before the request runs (refused over
 * the limit); the rest once its rows are known (`/v1`: the `data` of a list
 * answer, src/http/route.ts; GraphQL: the items of its pages,
 * src/graphql/page-rows.ts), so a page is weighed by what it returned, not
 * by the most it could have.
 */
const KEY_CACHE_MAX = 10_000;
const TABLE = 'management_rate_limits';

export interface ManagementRateLimiter {
  /** `/v1/*`: one unit per request. */
  middleware: Middleware;
  /** Counts `units` against the request's credential; throws 429 over the limit. */
  charge(http: Context, units: number): Promise<void>;
  /** After a request charged its first unit and ran: counts the rest of what its `rows` cost (never throws 429: the next request is refused). */
  chargeRows(http: Context, rows: number): Promise<void>;
}

/** Units a request that returned `rows` page rows costs in all. */
export function requestUnits(rows: number, rowsPerUnit: number): number {
  return Math.max(1, Math.ceil(rows / rowsPerUnit));
}

export function managementRateLimiter(container: AppContainer): ManagementRateLimiter {
  const { RELAY_API_RATE_LIMIT: limit, RELAY_API_RATE_WINDOW_SECONDS: windowSeconds, RELAY_API_ROWS_PER_UNIT: rowsPerUnit } = container.config;
  if (limit === 0) return { middleware: (_ctx, next) => next(), charge: async () => undefined, chargeRows: async () => undefined };
  const limiter = new RateLimiterPostgres({
    storeClient: container.orm.em.getConnection().getKnex(),
    storeType: 'knex',
    tableName: TABLE,
    // Created by a migration (UNLOGGED: a crash forgets at most the current windows).
    tableCreated: true,
    keyPrefix: 'v1',
    points: limit,
    duration: windowSeconds,
    inMemoryBlockOnConsumed: limit + 1,
    insuranceLimiter: new RateLimiterMemory({ points: limit, duration: windowSeconds }),
  });
  // API key hash → id, so a key's requests count against its id without a second lookup per request.
  const keyIds = new LRUCache<string, string>({ max: KEY_CACHE_MAX });

  async function credentialKey(http: Context): Promise<string> {
    return (http.state.rateLimitKey ??= await findCredentialKey(http)) as string;
  }

  async function findCredentialKey(http: Context): Promise<string> {
    const token = /^Bearer\s+(\S+)$/i.exec(http.get('authorization').trim())?.[1];
    if (token?.startsWith(API_KEY_PREFIX)) {
      const hash = hashToken(token);
      let id = keyIds.get(hash);
      if (!id) {
        const key = await container.orm.em.fork().findOne(ApiKey, { keyHash: hash }, { fields: ['id'] });
        if (key) keyIds.set(hash, (id = key.id));
      }
      if (id) return `key:${id}`;
    } else if (token) {
      const check = await verifyAccessToken(container.config, token);
      if (check.ok) return `user:${check.userId}`;
    }
    return `ip:${http.ip}`;
  }

  function setHeaders(http: Context, res: RateLimiterRes): number {
    const resetIn = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    http.set('RateLimit-Limit', String(limit));
    http.set('RateLimit-Remaining', String(Math.max(0, res.remainingPoints)));
    http.set('RateLimit-Reset', String(resetIn));
    return resetIn;
  }

  async function charge(http: Context, units: number): Promise<void> {
    const key = await credentialKey(http);
    let res: RateLimiterRes;
    try {
      res = await limiter.consume(key, units);
    } catch (refused) {
      // A refusal is a RateLimiterRes; anything else is a failure the insurance limiter did not cover.
      if (!(refused instanceof RateLimiterRes)) throw refused;
      const resetIn = setHeaders(http, refused);
      throw new RateLimitedError(
        `Too many management API requests: at most ${limit} per ${windowSeconds} s for each credential; retry after ${resetIn} s.`,
        resetIn,
        { limit, window_seconds: windowSeconds },
      );
    }
    setHeaders(http, res);
  }

  async function chargeRows(http: Context, rows: number): Promise<void> {
    const rest = requestUnits(rows, rowsPerUnit) - 1;
    if (rest > 0) setHeaders(http, await limiter.penalty(await credentialKey(http), rest));
  }

  return {
    charge,
    chargeRows,
    middleware: async (http: Context, next: Next) => {
      if (!http.path.startsWith('/v1/')) return next();
      await charge(http, 1);
      await next();
      if (typeof http.state.pageRows === 'number') await chargeRows(http, http.state.pageRows);
    },
  };
}
