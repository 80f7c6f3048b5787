import Router from '@koa/router';
import type { AppContainer } from '../app/container';
import { temporalIsUp } from '../temporal/client';

async function databaseIsUp(container: AppContainer): Promise<boolean> {
  try {
    await container.orm.em.getConnection().execute('select 1');
    return true;
  } catch {
    return false;
  }
}

/** `/healthz`: the process answers. `/readyz`: PostgreSQL and Temporal both answer (503 otherwise). */
export function healthRoutes(container: AppContainer): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const [database, temporal] = await Promise.all([databaseIsUp(container), temporalIsUp(container.temporal)]);
    ctx.status = database && temporal ? 200 : 503;
    ctx.body = {
      status: database && temporal ? 'ready' : 'not_ready',
      checks: { database: database ? 'up' : 'down', temporal: temporal ? 'up' : 'down' },
    };
  });
  return router;
}
