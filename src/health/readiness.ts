import { Gauge } from 'prom-client';
import type { AppContainer } from '../app/container';
import { metricsRegistry } from '../metrics/metrics';
import { temporalIsUp } from '../temporal/client';
import { workerStateOf } from '../worker/worker-supervisor';
import { isDraining } from './drain';

async function databaseIsUp(container: AppContainer): Promise<boolean> {
  try {
    await container.orm.em.getConnection().execute('select 1');
    return true;
  } catch {
    return false;
  }
}

export interface Readiness {
  ready: boolean;
  body: { status: 'ready' | 'not_ready' | 'draining'; checks: Record<string, 'up' | 'down'> };
}

/**
 * What `/readyz` answers (the API's port, and a worker process's metrics port): PostgreSQL answers,
 * this process's worker (if it runs one, so it needs Temporal) is connected and running, and the
 * process is not shutting down. Temporal is reported but does not make an API process unready:
 * ingress needs only PostgreSQL (the outbox holds events until workers can start their workflows),
 * so a Temporal outage must not take every API replica out of its load balancer.
 */
export async function readiness(container: AppContainer): Promise<Readiness> {
  if (isDraining(container)) return { ready: false, body: { status: 'draining', checks: {} } };
  const [database, temporal] = await Promise.all([databaseIsUp(container), temporalIsUp(container.temporal)]);
  const checks: Readiness['body']['checks'] = { database: database ? 'up' : 'down', temporal: temporal ? 'up' : 'down' };
  const worker = workerStateOf(container);
  if (worker !== undefined) checks.worker = worker === 'running' ? 'up' : 'down';
  const ready = checks.database === 'up' && checks.worker !== 'down';
  return { ready, body: { status: ready ? 'ready' : 'not_ready', checks } };
}

/** Scrapes within this window share one check (the two gauges below read the same answer). */
const READINESS_CACHE_MS = 1000;
let tracked: { container: AppContainer; at: number; answer?: Promise<Readiness> } | null = null;

function currentReadiness(): Promise<Readiness> | null {
  if (!tracked) return null;
  if (!tracked.answer || Date.now() - tracked.at >= READINESS_CACHE_MS) {
    tracked.at = Date.now();
    tracked.answer = readiness(tracked.container);
  }
  return tracked.answer;
}

/** What `/readyz` says, for alerting (deploy/prometheus/alerts.yml): a worker waiting for Temporal still serves `/metrics`. */
new Gauge({
  name: 'relay_ready',
  help: '1 when this process would answer /readyz with 200 (PostgreSQL answers, its worker runs, it is not draining), else 0.',
  registers: [metricsRegistry],
  async collect() {
    const answer = await currentReadiness();
    if (answer) this.set(answer.ready ? 1 : 0);
  },
});
new Gauge({
  name: 'relay_readiness_check',
  help: "/readyz's checks of this process: 1 up, 0 down, by check (database, temporal, worker).",
  labelNames: ['check'],
  registers: [metricsRegistry],
  async collect() {
    const answer = await currentReadiness();
    if (!answer) return;
    this.reset();
    for (const [check, state] of Object.entries(answer.body.checks)) this.set({ check }, state === 'up' ? 1 : 0);
  },
});

/** Makes `/metrics` of this process report its readiness (relay_ready, relay_readiness_check), read at each scrape. */
export function trackReadiness(container: AppContainer): void {
  tracked = { container, at: 0 };
}
