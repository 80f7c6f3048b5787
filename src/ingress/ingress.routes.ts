import Router from '@koa/router';
import type { AppContainer } from '../app/container';
import { AppError } from '../common/errors';
import { ingressRequests } from '../metrics/metrics';
import { createIngress } from './ingress.service';

/** `POST /hooks/:slug` (SPEC "POST /hooks/:slug"); errors are mapped by src/http/error-middleware.ts. */
export function ingressRoutes(container: AppContainer): Router {
  const { ingress, ready } = createIngress(container);
  const router = new Router();
  router.post('/hooks/:slug', async (ctx) => {
    await ready;
    try {
      ctx.body = await ingress.receive({ slug: ctx.params.slug, req: ctx.req, sourceIp: ctx.ip || null });
      ctx.status = 202;
      ingressRequests.inc({ status: '202' });
    } catch (err) {
      ingressRequests.inc({ status: String(err instanceof AppError ? err.status : 500) });
      throw err;
    }
  });
  return router;
}
