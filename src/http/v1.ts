import Router from '@koa/router';
import type { AppContainer } from '../app/container';
import { deliveryRoutes } from '../deliveries/delivery.routes';
import { bulkActionRoutes } from '../bulk-actions/bulk-action.routes';
import { issueRoutes } from '../issues/issue.routes';
import { eventRoutes } from '../events/event.routes';
import { cliTriggerRoutes } from '../cli-sessions/cli-trigger.routes';
import { resourceHealthRoutes } from '../resource-health/resource-health.routes';
import { accountRoutes } from '../accounts/account.routes';
import { apiKeyRoutes } from '../api-keys/api-key.routes';
import { oauthRoutes } from '../oauth/oauth.routes';
import { organizationRoutes } from '../organizations/organization.routes';
import { projectRoutes } from '../projects/project.routes';
import { projectMetricsRoutes } from '../project-metrics/project-metrics.routes';
import { destinationRoutes } from '../destinations/destination.routes';
import { endpointRoutes } from '../endpoints/endpoint.routes';
import { schemaRoutes } from '../schemas/schema.routes';
import { filterGroupRoutes } from '../filters/filter-group.routes';
import { linkRoutes } from '../links/link.routes';
import { templateRoutes } from '../templates/template.routes';
import { transformRoutes } from '../transforms/transform.routes';
import { buildOpenApiDocument } from './openapi';
import { mountRoutes, type RouteDef } from './route';
import { relayVersion } from '../../packages/cli/src/version';

/** Every `/v1` operation; add a resource's routes here. The OpenAPI document is built from this list. */
export const v1Routes: RouteDef[] = [...accountRoutes, ...organizationRoutes, ...projectRoutes, ...apiKeyRoutes, ...oauthRoutes, ...eventRoutes, ...cliTriggerRoutes, ...deliveryRoutes, ...bulkActionRoutes, ...issueRoutes, ...resourceHealthRoutes, ...endpointRoutes, ...schemaRoutes, ...filterGroupRoutes, ...destinationRoutes, ...linkRoutes, ...templateRoutes, ...transformRoutes, ...projectMetricsRoutes];

/**
 * The document checked in as schema/openapi.json (`npm run schema:emit`; a test fails on drift): the
 * served one but for its `servers` (relative here) and version (the package's).
 */
export function checkedInOpenApiJson(version: string): string {
  return JSON.stringify(buildOpenApiDocument(v1Routes, { version, serverUrl: '/' }), null, 2) + '\n';
}

export function v1Router(container: AppContainer): Router {
  const router = new Router();
  router.get('/v1/openapi.json', (ctx) => {
    ctx.body = buildOpenApiDocument(v1Routes, { version: relayVersion(), serverUrl: container.config.publicBaseUrl });
  });
  mountRoutes(router, container, v1Routes);
  return router;
}
