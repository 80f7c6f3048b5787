import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import type { Middleware } from 'koa';
import type { AppContainer } from '../app/container';
import { healthRoutes } from '../health/health.routes';
import { ingressRoutes } from '../ingress/ingress.routes';
import { metricsRoutes } from '../metrics/metrics.routes';
import type { ManagementRateLimiter } from '../rate-limit/management-rate-limit';
import { clientAddress } from './client-address';
import { apiDocsRouter } from './api-docs';
import { dashboardDir, dashboardMiddleware } from './dashboard';
import { errorMiddleware } from './error-middleware';
import { v1Router } from './v1';

/** The Koa app: ingress (`/hooks/:slug`), the `/v1` REST facade, `/graphql`, health, the API reference at `/docs`, the dashboard at `/`. */
export function createHttpApp(container: AppContainer, rateLimiter: ManagementRateLimiter, graphql: Middleware): Koa {
  const hops = container.config.RELAY_TRUST_PROXY;
  // X-Forwarded-* only from the proxies the operator declared; `ctx.ip` is the one client address everything uses.
  const app = new Koa({ proxy: hops > 0 });
  app.use(async (ctx, next) => {
    ctx.request.ip = clientAddress(ctx.req, hops);
    ctx.state.requestId = ctx.get('X-Request-Id') || randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    await next();
  });
  app.use(errorMiddleware(container.log));
  // Before the rate limiter: loading the dashboard's files is not API use.
  app.use(dashboardMiddleware(dashboardDir(container.config.RELAY_DASHBOARD_DIR)));
  app.use(rateLimiter.middleware);

  const routers = [ingressRoutes(container), healthRoutes(container), metricsRoutes(container.config), v1Router(container), apiDocsRouter()];
  for (const router of routers) app.use(router.routes()).use(router.allowedMethods());
  app.use(graphql);
  return app;
}
