import Router from '@koa/router';
import type { AppContainer } from '../app/container';
import { temporalIsUp } from '../temporal/client';
import { isDraining } from './drain';

async function databaseIsUp(container: AppContainer): Promise<boolean> {
  try {
    await container.orm.em.getConnection().execute('select 1');
    return true;
  } catch {
    return false;
  }
}

/**
 * `/healthz`: the process answers. `/readyz`: PostgreSQL and Temporal both answer
 * and the process is not shutting down (503 otherwise; `draining` once SIGTERM came).
 */
export function healthRoutes(container: AppContainer): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    if (isDraining(container)) {
      ctx.status = 503;
      ctx.body = { status: 'draining', checks: {} };
      return;
    }
    const [database, temporal] = await Promise.all([databaseIsUp(container), temporalIsUp(container.temporal)]);
    ctx.status = database && temporal ? 200 : 503;
    ctx.body = {
      status: database && temporal ? 'ready' : 'not_ready',
      checks: { database: database ? 'up' : 'down', temporal: temporal ? 'up' : 'down' },
    };
  });
  return router;
}
