import type { AppContainer } from '../app/container';
import { RateLimitedError } from '../common/errors';
import { hashToken } from '../common/secret-box';

/**
 * Sign-in throttle, shared by every API process through one UNLOGGED table
 * (`auth_throttle`), one upsert per check:
 *
 * - per client IP and action (`signup`, `login`, `refresh`), fixed windows of
 *   RELAY_AUTH_IP_WINDOW_SECONDS: every signup counts; a login or refresh
 *   counts while it runs and is given back when it succeeds, so only failures
 *   use up the RELAY_AUTH_IP_LIMIT, and concurrent guesses cannot all slip
 *   past the check;
 * - per account (the email, hashed): the attempt that reaches
 *   RELAY_LOGIN_MAX_FAILURES failures in a row locks the account for
 *   RELAY_LOGIN_LOCKOUT_SECONDS, and each later failure doubles it, up to
 *   RELAY_LOGIN_LOCKOUT_MAX_SECONDS. The lock is taken when the attempt
 *   starts (a success lifts it), so at most one guess runs per lockout; a
 *   locked account is refused without checking the password. Failures are
 *   forgotten after RELAY_LOGIN_LOCKOUT_MAX_SECONDS without an attempt.
 *
 * Refusals are 429 `rate_limited` with Retry-After (docs/api.md#errors).
 */
export type ThrottledAction = 'signup' | 'login' | 'refresh';

const SWEEP_EVERY_MS = 60_000;
const throttles = new WeakMap<AppContainer, AuthThrottle>();

const nowSeconds = () => Math.floor(Date.now() / 1000);

export class AuthThrottle {
  private lastSweep = 0;

  private constructor(private readonly container: AppContainer) {}

  /** The process's throttle for this container. */
  static for(container: AppContainer): AuthThrottle {
    let throttle = throttles.get(container);
    if (!throttle) throttles.set(container, (throttle = new AuthThrottle(container)));
    return throttle;
  }

  private get config() {
    return this.container.config;
  }

  private execute<T>(sql: string, params: unknown[]): Promise<T[]> {
    return this.container.orm.em.getConnection().execute(sql, params) as Promise<T[]>;
  }

  /**
   * Counts one `action` from `ip` in the current window; throws the 429 when
   * that goes over the limit. Returns a function that gives the count back
   * (call it when a login or refresh succeeds).
   */
  async takeIpAttempt(action: ThrottledAction, ip: string | undefined): Promise<() => Promise<void>> {
    const { RELAY_AUTH_IP_LIMIT: limit, RELAY_AUTH_IP_WINDOW_SECONDS: windowSeconds } = this.config;
    if (limit === 0 || !ip) return async () => undefined;
    this.sweep();
    const now = nowSeconds();
    const windowStart = now - (now % windowSeconds);
    const key = `ip:${action}:${ip}`;
    const [row] = await this.execute<{ count: number }>(
      `insert into auth_throttle as t (key, count, window_start) values (?, 1, ?)
       on conflict (key) do update set count = case when t.window_start = excluded.window_start then t.count + 1 else 1 end,
                                        window_start = excluded.window_start
       returning count`,
      [key, windowStart],
    );
    if (row.count > limit) {
      const retryAfter = Math.max(1, windowStart + windowSeconds - now);
      const what = action === 'signup' ? 'signups' : `failed ${action === 'login' ? 'logins' : 'refreshes'}`;
      throw new RateLimitedError(`Too many ${what} from your address: at most ${limit} per ${windowSeconds} s; retry after ${retryAfter} s.`, retryAfter, {
        limit_scope: 'ip',
        action,
      });
    }
    return async () => {
      await this.execute('update auth_throttle set count = greatest(count - 1, 0) where key = ? and window_start = ?', [key, windowStart]);
    };
  }

  /**
   * Starts a login attempt for `email`: throws the 429 while the account is
   * locked, else counts the attempt as a failure until `succeeded` clears it.
   */
  async startLoginAttempt(email: string): Promise<{ succeeded(): Promise<void> }> {
    const { RELAY_LOGIN_MAX_FAILURES: maxFailures, RELAY_LOGIN_LOCKOUT_SECONDS: base, RELAY_LOGIN_LOCKOUT_MAX_SECONDS: longest } = this.config;
    if (maxFailures === 0) return { succeeded: async () => undefined };
    const key = `account:${hashToken(email)}`;
    const now = nowSeconds();
    // The failure count including this attempt: earlier failures are forgotten after the longest lockout without an attempt.
    const count = 'case when t.window_start <= cast(:forgetBefore as bigint) then 1 else t.count + 1 end';
    const lockUntil = (n: string) =>
      `case when ${n} >= cast(:max as int) then cast(:now as bigint) + least(cast(:longest as bigint), cast(:base as bigint) * cast(power(2, ${n} - cast(:max as int)) as bigint)) end`;
    const knex = this.container.orm.em.getConnection().getKnex();
    const { rows } = await knex.raw<{ rows: Array<{ count: number }> }>(
      `insert into auth_throttle as t (key, count, window_start, blocked_until)
       values (:key, 1, cast(:now as bigint), ${lockUntil('1')})
       on conflict (key) do update set count = ${count}, window_start = excluded.window_start, blocked_until = ${lockUntil(`(${count})`)}
       where t.blocked_until is null or t.blocked_until <= excluded.window_start
       returning count`,
      { key, now, forgetBefore: now - longest, longest, base, max: maxFailures },
    );
    if (rows.length === 0) {
      const [locked] = await this.execute<{ blocked_until: string | null }>('select blocked_until from auth_throttle where key = ?', [key]);
      const retryAfter = Math.max(1, Number(locked?.blocked_until ?? now + 1) - now);
      throw new RateLimitedError(
        `Too many failed logins for this account: it is locked for ${retryAfter} s. Wait, or reset the password.`,
        retryAfter,
        { limit_scope: 'account' },
      );
    }
    return {
      succeeded: async () => {
        await this.execute('delete from auth_throttle where key = ?', [key]);
      },
    };
  }

  /** Drops counters no check can read any more; at most once a minute per process. */
  private sweep(): void {
    const nowMs = Date.now();
    if (nowMs - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = nowMs;
    const now = Math.floor(nowMs / 1000);
    const horizon = now - Math.max(this.config.RELAY_AUTH_IP_WINDOW_SECONDS, this.config.RELAY_LOGIN_LOCKOUT_MAX_SECONDS);
    this.execute('delete from auth_throttle where window_start < ? and (blocked_until is null or blocked_until < ?)', [horizon, now]).catch((err: unknown) =>
      this.container.log.warn({ err }, 'auth throttle sweep failed'),
    );
  }
}
