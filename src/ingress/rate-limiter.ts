import type { Pool } from 'pg';
import { RateLimitedError } from '../common/errors';
import type { Logger } from '../common/logger';
import type { Plan } from '../common/types';
import { ingressRateLimited } from '../metrics/metrics';

/** Per-plan ingress caps (docs/ingress.md#limits), requests per second. */
export const PLAN_CAPS: Record<Plan, { endpoint: number; project: number }> = {
  free: { endpoint: 60, project: 180 },
  team: { endpoint: 120, project: 360 },
  growth: { endpoint: 600, project: 1800 },
};

export interface RateSubject {
  id: string;
  projectId: string;
  plan: Plan;
  isIntegration: boolean;
}

type Scope = 'endpoint' | 'project';

const keyOf = (scope: Scope, id: string) => `${scope === 'endpoint' ? 'e' : 'p'}:${id}`;

/**
 * Counts go to one UNLOGGED table that every API process shares
 * (`ingress_rate_counters`, one row per scope key and second: docs/ingress.md#limits).
 *
 * - Free plan (rejects): each request increments both counters atomically
 *   (one upsert) and is refused with 429 when either passes its cap. Once a
 *   key is known to be over for this second, further requests are refused
 *   from memory, so the database sees at most about cap + processes
 *   increments per key and second.
 * - Team and Growth (accept and log): requests are counted in memory and the
 *   deltas flushed every `flushMs` in one upsert; the totals it returns show
 *   what went over the cap, which is logged and counted.
 * - Endpoints created by an integration are never limited or counted.
 */
export class IngressRateLimiter {
  private readonly over = new Map<string, number>();
  private pending = new Map<string, { window: number; delta: number; cap: number; plan: Plan; scope: Scope }>();
  private readonly logged = new Map<string, number>();
  private readonly flushTimer: NodeJS.Timeout;
  private readonly sweepTimer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: Pool,
    private readonly log: Logger,
    flushMs = 100,
  ) {
    this.flushTimer = setInterval(() => void this.flush(), flushMs).unref();
    this.sweepTimer = setInterval(() => void this.sweep(), 30_000).unref();
  }

  /** Throws RateLimitedError (429 + Retry-After) for a Free-plan endpoint over a cap. */
  async admit(subject: RateSubject, nowMs = Date.now()): Promise<void> {
    if (subject.isIntegration) return;
    const window = Math.floor(nowMs / 1000);
    const caps = PLAN_CAPS[subject.plan];
    if (subject.plan !== 'free') {
      this.count(keyOf('endpoint', subject.id), window, caps.endpoint, subject.plan, 'endpoint');
      this.count(keyOf('project', subject.projectId), window, caps.project, subject.plan, 'project');
      return;
    }
    const endpointKey = keyOf('endpoint', subject.id);
    const projectKey = keyOf('project', subject.projectId);
    // Counters are per second: the next window opens within a second.
    const retryAfter = 1;
    for (const [key, scope] of [[endpointKey, 'endpoint'], [projectKey, 'project']] as const) {
      if (this.over.get(key) === window) throw this.reject(subject, scope, retryAfter);
    }
    const { rows } = await this.pool.query<{ scope: string; count: number }>({
      name: 'ingress_rate_increment',
      text: `insert into ingress_rate_counters (scope, window_start, count)
             select unnest($1::text[]), $2::bigint, 1
             on conflict (scope, window_start) do update set count = ingress_rate_counters.count + 1
             returning scope, count`,
      values: [[endpointKey, projectKey], window],
    });
    const counts = new Map(rows.map((r) => [r.scope, r.count]));
    if ((counts.get(endpointKey) ?? 0) > caps.endpoint) {
      this.over.set(endpointKey, window);
      throw this.reject(subject, 'endpoint', retryAfter);
    }
    if ((counts.get(projectKey) ?? 0) > caps.project) {
      this.over.set(projectKey, window);
      throw this.reject(subject, 'project', retryAfter);
    }
  }

  close(): Promise<void> {
    clearInterval(this.flushTimer);
    clearInterval(this.sweepTimer);
    return this.flush();
  }

  private reject(subject: RateSubject, scope: Scope, retryAfter: number): RateLimitedError {
    ingressRateLimited.inc({ outcome: 'rejected', scope, plan: subject.plan });
    const cap = PLAN_CAPS[subject.plan][scope];
    return new RateLimitedError(
      `This ${scope}'s ingress cap of ${cap} requests per second on the ${subject.plan} plan is reached; retry after ${retryAfter} s.`,
      retryAfter,
      { scope, cap, plan: subject.plan },
    );
  }

  private count(key: string, window: number, cap: number, plan: Plan, scope: Scope): void {
    const mapKey = `${key}@${window}`;
    const entry = this.pending.get(mapKey);
    if (entry) entry.delta++;
    else this.pending.set(mapKey, { window, delta: 1, cap, plan, scope });
  }

  /** Sends the pending deltas; one flush at a time. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushOnce()).catch((err) => this.log.warn({ err }, 'rate counter flush failed'));
    return this.flushing;
  }

  private async flushOnce(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.entries()];
    this.pending = new Map();
    const { rows } = await this.pool.query<{ scope: string; window_start: string; count: number }>({
      name: 'ingress_rate_flush',
      text: `insert into ingress_rate_counters (scope, window_start, count)
             select * from unnest($1::text[], $2::bigint[], $3::int[])
             on conflict (scope, window_start) do update set count = ingress_rate_counters.count + excluded.count
             returning scope, window_start, count`,
      values: [batch.map(([k]) => k.slice(0, k.indexOf('@'))), batch.map(([, v]) => v.window), batch.map(([, v]) => v.delta)],
    });
    const totals = new Map(rows.map((r) => [`${r.scope}@${r.window_start}`, r.count]));
    for (const [mapKey, { delta, cap, plan, scope, window }] of batch) {
      const total = totals.get(mapKey) ?? 0;
      const overage = Math.min(delta, total - cap);
      if (overage <= 0) continue;
      ingressRateLimited.inc({ outcome: 'accepted_over_cap', scope, plan }, overage);
      const key = mapKey.slice(0, mapKey.indexOf('@'));
      if (this.logged.get(key) !== window) {
        this.logged.set(key, window);
        this.log.warn({ key, plan, cap, total, window }, 'ingress cap exceeded; accepted (plan accepts overages)');
      }
    }
  }

  private async sweep(): Promise<void> {
    const cutoff = Math.floor(Date.now() / 1000) - 60;
    for (const map of [this.over, this.logged]) for (const [k, w] of map) if (w < cutoff) map.delete(k);
    await this.pool
      .query('delete from ingress_rate_counters where window_start < $1', [cutoff])
      .catch((err) => this.log.warn({ err }, 'rate counter sweep failed'));
  }
}
