import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Decides each answer; defaults to 200 `ok`. */
  respond: (req: ReceivedRequest, index: number) => { status: number; body?: string; headers?: Record<string, string> };
  /** Resolves once `count` requests have arrived (polls; the test's own timeout bounds it). */
  waitFor(count: number): Promise<void>;
  close(): Promise<void>;
}

/** A local webhook receiver on 127.0.0.1 that records every request. */
export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    requests: [],
    respond: () => ({ status: 200, body: 'ok' }),
    waitFor: async (count) => {
      while (receiver.requests.length < count) await new Promise((r) => setTimeout(r, 25));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const index = receiver.requests.push(received) - 1;
      const answer = receiver.respond(received, index);
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
      res.end(answer.body ?? '');
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const close = receiver.close;
  receiver.close = async () => {
    server.closeAllConnections();
    await close();
  };
  return receiver;
}
