import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readiness } from '../health/readiness';
import { metricsRegistry } from './metrics';

const json = (res: http.ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/**
 * `GET /metrics`, `/healthz` and `/readyz`, for a process without the API's HTTP server
 * (`relay worker`): `/readyz` answers 503 while its worker waits for Temporal or PostgreSQL.
 */
export async function startMetricsServer(port: number, host: string, ready: () => Promise<Readiness>): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (req.method === 'GET' && path === '/healthz') return json(res, 200, { status: 'ok' });
    if (req.method === 'GET' && path === '/readyz') {
      ready().then(
        (r) => json(res, r.ready ? 200 : 503, r.body),
        (err: Error) => json(res, 503, { status: 'not_ready', error: err.message }),
      );
      return;
    }
    if (req.method !== 'GET' || path !== '/metrics') {
      return json(res, 404, { error: { code: 'not_found', message: 'Only GET /metrics, /healthz and /readyz are served here.' } });
    }
    metricsRegistry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metricsRegistry.contentType }).end(text),
      (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics collection failed: ${err.message}`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
