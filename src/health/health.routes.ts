import Router from '@koa/router';
import type { AppContainer } from '../app/container';
import { readiness } from './readiness';

/**
 * `/healthz`: the process answers. `/readyz`: PostgreSQL and Temporal both answer, the
 * process's worker (with `relay start`) runs, and the process is not shutting down (503
 * otherwise; `draining` once SIGTERM came).
 */
export function healthRoutes(container: AppContainer): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const { ready, body } = await readiness(container);
    ctx.status = ready ? 200 : 503;
    ctx.body = body;
  });
  return router;
}
