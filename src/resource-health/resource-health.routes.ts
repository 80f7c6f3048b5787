import { idParams, route } from '../http/route';
import { getDestinationHealth, getEndpointHealth, resourceHealthView } from './resource-health.service';

export const resourceHealthRoutes = [
  route({
    method: 'get', path: '/v1/destinations/:id/health', tag: 'destinations',
    summary: 'Health over 24 h: success rate, p95 latency, last error, failing since, CLI online (the circuit is on the destination)',
    access: { scope: 'project', permission: 'read' }, params: idParams, response: resourceHealthView,
    handler: (ctx, { params }) => getDestinationHealth(ctx, params.id),
  }),
  route({
    method: 'get', path: '/v1/endpoints/:id/health', tag: 'endpoints',
    summary: "Health over 24 h of the endpoint's deliveries: success rate, p95 latency, last error, failing since",
    access: { scope: 'project', permission: 'read' }, params: idParams, response: resourceHealthView,
    handler: (ctx, { params }) => getEndpointHealth(ctx, params.id),
  }),
];
