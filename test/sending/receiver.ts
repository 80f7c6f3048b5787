import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as a customer's webhook receiver sees it: raw bytes first. */
export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  remotePort: number | undefined;
}

export type ReceiverHandler = (req: http.IncomingMessage, res: http.ServerResponse, received: Received) => void;

/** A local HTTP server standing in for a customer's endpoint; answers 200 `{"received":true}` unless told otherwise. */
export async function startReceiver(): Promise<{
  url: string;
  port: number;
  received: Received[];
  handle(handler: ReceiverHandler | null): void;
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  let handler: ReceiverHandler | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { path: req.url ?? '/', headers: req.headers, rawBody: Buffer.concat(chunks).toString('utf8'), remotePort: req.socket.remotePort };
      received.push(r);
      if (handler) return handler(req, res, r);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    handle: (h) => {
      handler = h;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Verifies a signature exactly as the docs tell customers to: HMAC-SHA256 of
 * `<timestamp>.<raw body>` with the secret, compared in constant time, with
 * the timestamp within 5 minutes.
 */
export function customerVerifies(secret: string, timestamp: string | undefined, signature: string | undefined, rawBody: string, nowSeconds = Date.now() / 1000): boolean {
  if (!timestamp || !signature || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > 300) return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
