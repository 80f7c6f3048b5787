import Router from '@koa/router';
import { metricsRegistry } from './metrics';

/** `GET /metrics`: Prometheus text format. */
export function metricsRoutes(): Router {
  const router = new Router();
  router.get('/metrics', async (ctx) => {
    ctx.set('Content-Type', metricsRegistry.contentType);
    ctx.body = await metricsRegistry.metrics();
  });
  return router;
}
