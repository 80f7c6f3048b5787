import Router from '@koa/router';
import type { AppContainer } from '../app/container';
import { AppError, ClientAbortedError, ServiceUnavailableError } from '../common/errors';
import { ingressRequests } from '../metrics/metrics';
import { recordEventSpan } from '../telemetry/tracing';
import { ingressFor } from './ingress.service';

/** `POST /hooks/:slug` (docs/ingress.md); errors are mapped by src/http/error-middleware.ts. */
export function ingressRoutes(container: AppContainer): Router {
  const { ingress, ready } = ingressFor(container);
  const router = new Router();
  router.post('/hooks/:slug', async (ctx) => {
    await ready;
    const startedAt = Date.now();
    try {
      const accepted = await ingress.receive({ slug: ctx.params.slug, req: ctx.req, sourceIp: ctx.ip || null });
      ctx.body = accepted;
      ctx.status = 202;
      recordEventSpan(accepted.event_id, 'relay.ingress', startedAt, { 'relay.endpoint_slug': ctx.params.slug });
      ingressRequests.inc({ status: '202' });
    } catch (err) {
      if (err instanceof AppError) {
        ingressRequests.inc({ status: err instanceof ClientAbortedError ? 'client_aborted' : String(err.status) });
        throw err;
      }
      // Nothing was acknowledged: the sender should retry (providers do on 5xx).
      container.log.error({ err, slug: ctx.params.slug, requestId: ctx.state.requestId }, 'ingress could not store the event');
      ingressRequests.inc({ status: '503' });
      throw new ServiceUnavailableError('The event could not be stored right now; nothing was accepted. Retry later.');
    }
  });
  return router;
}
