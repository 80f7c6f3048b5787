import Router from '@koa/router';
import type { Config } from '../config/config';
import { AppError } from '../common/errors';
import { METRICS_TOKEN_MESSAGE, metricsTokenAccepted, publicMetricsAccess } from './metrics-access';
import { metricsRegistry } from './metrics';

/** `GET /metrics` on the API's own port: Prometheus text format, to whom src/metrics/metrics-access.ts allows. */
export function metricsRoutes(config: Config): Router {
  const router = new Router();
  const access = publicMetricsAccess(config);
  router.get('/metrics', async (ctx) => {
    if (access === 'off') {
      throw new AppError(404, 'not_found', 'Metrics are not served on this port: scrape the metrics port (RELAY_METRICS_PORT).');
    }
    if (access === 'token' && !metricsTokenAccepted(ctx.get('authorization'), config.RELAY_METRICS_TOKEN)) {
      throw new AppError(401, 'unauthenticated', METRICS_TOKEN_MESSAGE, undefined, { 'WWW-Authenticate': 'Bearer' });
    }
    ctx.set('Content-Type', metricsRegistry.contentType);
    ctx.body = await metricsRegistry.metrics();
  });
  return router;
}
