import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { metricsRegistry } from './metrics';

/** `GET /metrics` alone, for a process without the API's HTTP server (`relay worker`). */
export async function startMetricsServer(port: number, host: string): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'not_found', message: 'Only GET /metrics is served here.' } }));
      return;
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
