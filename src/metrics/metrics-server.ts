import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readiness } from '../health/readiness';
import { METRICS_TOKEN_MESSAGE, metricsTokenAccepted } from './metrics-access';
import { metricsRegistry } from './metrics';

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

export interface MetricsListener {
  port: number;
  host: string;
  /** Readiness of the process (`/readyz`): 503 while its worker waits for Temporal or PostgreSQL, or while it drains. */
  ready: () => Promise<Readiness>;
  /** RELAY_METRICS_TOKEN: `/metrics` then needs `Authorization: Bearer <token>`; the health checks never do. */
  token?: string;
}

/**
 * The metrics listener (RELAY_METRICS_PORT of `relay api`, RELAY_WORKER_METRICS_PORT of `relay worker`): `GET /metrics`,
 * `/healthz` and `/readyz` on a port apart from the API's public one, for Prometheus and the orchestrator's probes.
 */
export async function startMetricsServer(opts: MetricsListener): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (req.method === 'GET' && path === '/healthz') return json(res, 200, { status: 'ok' });
    if (req.method === 'GET' && path === '/readyz') {
      opts.ready().then(
        (r) => json(res, r.ready ? 200 : 503, r.body),
        (err: Error) => json(res, 503, { status: 'not_ready', error: err.message }),
      );
      return;
    }
    if (req.method !== 'GET' || path !== '/metrics') {
      return json(res, 404, { error: { code: 'not_found', message: 'Only GET /metrics, /healthz and /readyz are served here.' } });
    }
    if (!metricsTokenAccepted(req.headers.authorization, opts.token)) {
      return json(res, 401, { error: { code: 'unauthenticated', message: METRICS_TOKEN_MESSAGE } }, { 'www-authenticate': 'Bearer' });
    }
    metricsRegistry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metricsRegistry.contentType }).end(text),
      (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics collection failed: ${err.message}`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
