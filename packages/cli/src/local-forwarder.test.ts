import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeLocalAgents } from './local-post';
import { CliError, EXIT } from './cli-errors';
import { type CliForward, forwardLocally, parseDelayMs, parseForwardPath, parsePort } from './local-forwarder';
import { REPORTED_BODY_LIMIT_BYTES } from './shared/limits';

const usageError = (fn: () => unknown, text: RegExp) => {
  let thrown: unknown;
  try {
    fn();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(CliError);
  expect((thrown as CliError).exitCode).toBe(EXIT.usage);
  expect((thrown as CliError).message).toMatch(text);
};

describe('listen arguments', () => {
  it('takes ports 1 to 65535 only', () => {
    expect(parsePort('1')).toBe(1);
    expect(parsePort('4000')).toBe(4000);
    expect(parsePort('65535')).toBe(65535);
    for (const bad of ['0', '65536', '-1', '80.5', 'abc', '', '4000x', '1e3', '999999']) usageError(() => parsePort(bad), /invalid port .*1 to 65535/);
  });

  it('normalises --path and refuses URLs', () => {
    expect(parseForwardPath('/')).toBe('/');
    expect(parseForwardPath('webhooks/stripe')).toBe('/webhooks/stripe');
    expect(parseForwardPath('/hooks?x=1')).toBe('/hooks?x=1');
    for (const bad of ['http://evil/', 'a b', '/x#y']) usageError(() => parseForwardPath(bad), /invalid path/);
  });

  it('takes delays of 0 to 10000 ms', () => {
    expect(parseDelayMs('0')).toBe(0);
    expect(parseDelayMs('10000')).toBe(10000);
    for (const bad of ['10001', '-5', '1.5', 'soon']) usageError(() => parseDelayMs(bad), /invalid delay/);
  });
});

describe('forwardLocally', () => {
  let server: http.Server;
  let port: number;
  let received: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[];
  let answer: (res: http.ServerResponse) => void;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ method: req.method, url: req.url, headers: req.headers, body });
        answer(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, resolve));
    port = (server.address() as AddressInfo).port;
  });
  beforeEach(() => (received = []));
  afterAll(async () => {
    await closeLocalAgents();
    await new Promise((resolve) => server.close(resolve));
  });

  const forward: CliForward = {
    id: 'f1', eventId: 'e1', deliveryId: 'd1', attemptNumber: 1, eventType: 'push', sourceSlug: 'gh', receivedAt: new Date().toISOString(),
    method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Service-Event-ID': 'e1', 'x-hub-signature-256': 'sha256=abc' }, body: '{"a": 1,  "b":"é"}', delayMs: 0,
  };

  it('POSTs the exact body and headers to localhost and reports status, lower-case headers and latency', async () => {
    answer = (res) => res.writeHead(201, { 'X-Answer': 'yes', 'content-type': 'text/plain' }).end('created');
    const result = await forwardLocally(forward, { url: `http://localhost:${port}/hooks` });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: 'POST', url: '/hooks', body: '{"a": 1,  "b":"é"}' });
    expect(received[0].headers).toMatchObject({ 'content-type': 'application/json', 'x-service-event-id': 'e1', 'x-hub-signature-256': 'sha256=abc' });
    expect(result).toMatchObject({ forwardId: 'f1', statusCode: 201, responseBody: 'created', error: null });
    expect(result.responseHeaders).toMatchObject({ 'x-answer': 'yes' });
    expect(result.latencyMs).toEqual(expect.any(Number));
  });

  it('reports at most 64 KiB of the local body', async () => {
    answer = (res) => res.writeHead(500).end('x'.repeat(REPORTED_BODY_LIMIT_BYTES * 2));
    const result = await forwardLocally(forward, { url: `http://localhost:${port}/` });
    expect(result.statusCode).toBe(500);
    expect(Buffer.byteLength(result.responseBody!)).toBeLessThanOrEqual(REPORTED_BODY_LIMIT_BYTES);
  });

  it('reports a refused connection and a timeout as errors without a status', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await forwardLocally(forward, { url: `http://localhost:${closedPort}/` });
    expect(refused).toMatchObject({ statusCode: null, responseBody: null });
    expect(refused.error).toMatch(/ECONNREFUSED/);

    answer = () => undefined; // never answers
    const slow = await forwardLocally(forward, { url: `http://localhost:${port}/`, timeoutMs: 200 });
    expect(slow.statusCode).toBeNull();
    expect(slow.error).toMatch(/timeout/);
  });
});
