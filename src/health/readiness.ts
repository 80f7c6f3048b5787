import type { AppContainer } from '../app/container';
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
 * What `/readyz` answers (the API's port, and a worker process's metrics port): PostgreSQL and
 * Temporal both answer, this process's worker (if it runs one) is connected and running, and
 * the process is not shutting down.
 */
export async function readiness(container: AppContainer): Promise<Readiness> {
  if (isDraining(container)) return { ready: false, body: { status: 'draining', checks: {} } };
  const [database, temporal] = await Promise.all([databaseIsUp(container), temporalIsUp(container.temporal)]);
  const checks: Readiness['body']['checks'] = { database: database ? 'up' : 'down', temporal: temporal ? 'up' : 'down' };
  const worker = workerStateOf(container);
  if (worker !== undefined) checks.worker = worker === 'running' ? 'up' : 'down';
  const ready = Object.values(checks).every((c) => c === 'up');
  return { ready, body: { status: ready ? 'ready' : 'not_ready', checks } };
}
