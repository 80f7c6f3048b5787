import type { Context, Middleware, Next } from 'koa';
import { LRUCache } from 'lru-cache';
import { ApiKey } from '../api-keys/api-key.entity';
import type { AppContainer } from '../app/container';
import { API_KEY_PREFIX } from '../auth/principal';
import { verifyAccessToken } from '../auth/tokens';
import { RateLimitedError } from '../common/errors';
import { hashToken } from '../common/secret-box';

/**
 * Management API rate limit (`/v1/*` and `/graphql` over HTTP): at most
 * RELAY_API_RATE_LIMIT units per credential in each fixed window of
 * RELAY_API_RATE_WINDOW_SECONDS. The credential is the API key (by id), else
 * the session's user (the verified JWT `sub`), else the client IP. Counters
 * live in one UNLOGGED table, so every API process shares them. Over the
 * limit: 429, `Retry-After` (seconds until the window ends) and the usual
 * error body.
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
const SWEEP_EVERY_MS = 60_000;

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
  // API key hash → id, so a key's requests count against its id without a second lookup per request.
  const keyIds = new LRUCache<string, string>({ max: KEY_CACHE_MAX });
  let lastSweep = 0;

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

  function sweep(nowMs: number): void {
    if (nowMs - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = nowMs;
    const cutoff = Math.floor(nowMs / 1000) - 2 * windowSeconds;
    container.orm.em
      .getConnection()
      .execute('delete from management_rate_counters where window_start < ?', [cutoff])
      .catch((err: unknown) => container.log.warn({ err }, 'management rate counter sweep failed'));
  }

  /** Adds `units` to the credential's count in the current window; answers the count and the rate headers' values. */
  async function add(http: Context, units: number): Promise<{ count: number; resetIn: number }> {
    const nowMs = Date.now();
    const now = Math.floor(nowMs / 1000);
    const windowStart = now - (now % windowSeconds);
    const key = await credentialKey(http);
    const row = (await container.orm.em.getConnection().execute(
      `insert into management_rate_counters (key, window_start, count) values (?, ?, ?)
       on conflict (key, window_start) do update set count = management_rate_counters.count + excluded.count
       returning count`,
      [key, windowStart, units],
      'get',
    )) as { count: number };
    sweep(nowMs);
    const resetIn = Math.max(1, windowStart + windowSeconds - now);
    http.set('RateLimit-Limit', String(limit));
    http.set('RateLimit-Remaining', String(Math.max(0, limit - row.count)));
    http.set('RateLimit-Reset', String(resetIn));
    return { count: row.count, resetIn };
  }

  async function charge(http: Context, units: number): Promise<void> {
    const { count, resetIn } = await add(http, units);
    if (count > limit) {
      throw new RateLimitedError(
        `Too many management API requests: at most ${limit} per ${windowSeconds} s for each credential; retry after ${resetIn} s.`,
        resetIn,
        { limit, window_seconds: windowSeconds },
      );
    }
  }

  async function chargeRows(http: Context, rows: number): Promise<void> {
    const rest = requestUnits(rows, rowsPerUnit) - 1;
    if (rest > 0) await add(http, rest);
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
