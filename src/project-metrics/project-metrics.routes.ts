import { route } from '../http/route';
import { getProjectMetrics, projectMetricsQuery } from './project-metrics.service';
import { projectMetricsView } from './project-metrics.view';

export const projectMetricsRoutes = [
  route({
    method: 'get', path: '/v1/metrics', tag: 'metrics',
    summary: 'Events, delivery outcomes, success rate, per-destination latency and dead letters over the last hour, day or week',
    access: { scope: 'project', permission: 'read' }, query: projectMetricsQuery, response: projectMetricsView,
    handler: (ctx, { query }) => getProjectMetrics(ctx, query),
  }),
];
