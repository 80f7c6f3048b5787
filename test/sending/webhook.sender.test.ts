import dns from 'node:dns';
import { freePort } from '../support/free-port';
import { closeHttpAgents } from '../../src/sending/http-client';
import { sendWebhook, type WebhookSendArgs } from '../../src/sending/webhook.sender';
import { customerVerifies, startReceiver } from './receiver';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterEach(() => {
  receiver.received.length = 0;
  receiver.handle(null);
});
afterAll(async () => {
  await receiver.close();
  await closeHttpAgents();
});

const payload = { action: 'opened', repo: { name: 'relay' }, note: 'héllo wörld ✓' };
const args = (over: Partial<WebhookSendArgs> = {}): WebhookSendArgs => ({
  url: receiver.url,
  payload,
  headerPrefix: 'Acme',
  eventId: '0190e6c8-0000-7000-8000-000000000001',
  endpointId: '0190e6c8-0000-7000-8000-000000000002',
  deliveryId: '0190e6c8-0000-7000-8000-000000000003',
  timeoutMs: 5000,
  allowPrivateNetworks: true,
  ...over,
});

describe('sendWebhook: headers and signing', () => {
  it('posts the JSON with the id headers and a signature the receiver can verify', async () => {
    const result = await sendWebhook(args({ signing: { secret: 'whsec_new_secret_0123456789' } }));
    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null, responseBody: '{"received":true}', responseBodyTruncated: false });
    expect(result.payloadSent).toEqual(payload);
    expect(result.responseHeaders?.['content-type']).toBe('application/json');

    expect(receiver.received).toHaveLength(1);
    const [got] = receiver.received;
    expect(JSON.parse(got.rawBody)).toEqual(payload);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-acme-event-id']).toBe('0190e6c8-0000-7000-8000-000000000001');
    expect(got.headers['x-acme-endpoint-id']).toBe('0190e6c8-0000-7000-8000-000000000002');
    expect(got.headers['x-acme-delivery-id']).toBe('0190e6c8-0000-7000-8000-000000000003');
    const ts = got.headers['x-acme-timestamp'] as string;
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(5);
    expect(customerVerifies('whsec_new_secret_0123456789', ts, got.headers['x-acme-signature'] as string, got.rawBody)).toBe(true);
    expect(customerVerifies('some-other-secret-000000', ts, got.headers['x-acme-signature'] as string, got.rawBody)).toBe(false);
    expect(got.headers['x-acme-signature-previous']).toBeUndefined();
  });

  it('signs with the previous secret too during a rotation overlap', async () => {
    await sendWebhook(args({ signing: { secret: 'whsec_new_secret_0123456789', previousSecret: 'whsec_old_secret_0123456789' } }));
    const [got] = receiver.received;
    const ts = got.headers['x-acme-timestamp'] as string;
    expect(customerVerifies('whsec_new_secret_0123456789', ts, got.headers['x-acme-signature'] as string, got.rawBody)).toBe(true);
    expect(customerVerifies('whsec_old_secret_0123456789', ts, got.headers['x-acme-signature-previous'] as string, got.rawBody)).toBe(true);
    // The main header is never the old secret's.
    expect(customerVerifies('whsec_old_secret_0123456789', ts, got.headers['x-acme-signature'] as string, got.rawBody)).toBe(false);
  });

  it('uses the given clock for the timestamp (a receiver rejects stale ones)', async () => {
    const tenMinutesAgo = Date.now() - 600_000;
    await sendWebhook(args({ signing: { secret: 'whsec_new_secret_0123456789' }, now: () => tenMinutesAgo }));
    const [got] = receiver.received;
    expect(got.headers['x-acme-timestamp']).toBe(String(Math.floor(tenMinutesAgo / 1000)));
    expect(customerVerifies('whsec_new_secret_0123456789', got.headers['x-acme-timestamp'] as string, got.headers['x-acme-signature'] as string, got.rawBody)).toBe(false);
  });

  it('sends no timestamp or signature headers without a secret', async () => {
    await sendWebhook(args({ signing: null, headerPrefix: 'Service' }));
    const [got] = receiver.received;
    expect(got.headers['x-service-event-id']).toBeDefined();
    expect(Object.keys(got.headers).filter((h) => /timestamp|signature/.test(h))).toEqual([]);
  });
});

describe('sendWebhook: answers', () => {
  it('records a non-2xx answer as a failure with its body', async () => {
    receiver.handle((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('down for maintenance');
    });
    const result = await sendWebhook(args());
    expect(result).toMatchObject({ ok: false, statusCode: 503, error: 'HTTP 503 Service Unavailable', responseBody: 'down for maintenance' });
    expect(result.retryAfterMs).toBeUndefined();
    expect(result.permanent).toBeUndefined();
  });

  it('keeps the first 4096 bytes of a long answer, cut on a character boundary', async () => {
    const big = 'x'.repeat(4095) + '€'.repeat(2_000_000); // ~6 MB; the cut falls inside a 3-byte character
    receiver.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(big);
    });
    const result = await sendWebhook(args());
    expect(result.ok).toBe(true);
    expect(result.responseBodyTruncated).toBe(true);
    expect(result.responseBody).toBe('x'.repeat(4095));
  });

  it('stops reading an endless answer after the cap instead of buffering it', async () => {
    let closed = false;
    receiver.handle((req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      req.socket.once('close', () => (closed = true));
      pump();
    });
    const result = await sendWebhook(args({ timeoutMs: 5000 }));
    expect(result).toMatchObject({ ok: true, statusCode: 200, responseBodyTruncated: true, error: null });
    expect(result.responseBody).toBe('a'.repeat(4096));
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(true);
  });

  it('does not follow redirects: the 3xx is a failure recorded with its Location', async () => {
    receiver.handle((req, res) => {
      if (req.url === '/hook') {
        res.writeHead(301, { location: '/elsewhere' });
        return res.end();
      }
      res.writeHead(200);
      res.end('followed');
    });
    const result = await sendWebhook(args());
    expect(result).toMatchObject({ ok: false, statusCode: 301 });
    expect(result.error).toBe('HTTP 301 Moved Permanently: redirect not followed (Location: /elsewhere)');
    expect(receiver.received.map((r) => r.path)).toEqual(['/hook']);
  });

  it('turns a 429 Retry-After into retryAfterMs (capped at one hour), still a failure', async () => {
    receiver.handle((_req, res) => {
      res.writeHead(429, { 'retry-after': '120' });
      res.end();
    });
    const result = await sendWebhook(args());
    expect(result).toMatchObject({ ok: false, statusCode: 429, retryAfterMs: 120_000 });
    expect(result.rateLimited).toBeUndefined();
    receiver.handle((_req, res) => {
      res.writeHead(429, { 'retry-after': '86400' });
      res.end();
    });
    expect((await sendWebhook(args())).retryAfterMs).toBe(3_600_000);
  });

  it('times out when the answer does not come in time', async () => {
    receiver.handle((_req, res) => {
      setTimeout(() => res.end('late'), 3000).unref();
    });
    const result = await sendWebhook(args({ timeoutMs: 300 }));
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'timeout: no complete answer within 300 ms' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(250);
  });

  it('times out when the headers come but the body stalls', async () => {
    receiver.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
      setTimeout(() => res.end('rest'), 3000).unref();
    });
    const result = await sendWebhook(args({ timeoutMs: 300 }));
    expect(result).toMatchObject({ ok: false, error: 'timeout: no complete answer within 300 ms' });
  });

  it('reports a refused connection', async () => {
    const port = await freePort();
    const result = await sendWebhook(args({ url: `http://127.0.0.1:${port}/hook` }));
    expect(result).toMatchObject({ ok: false, statusCode: null });
    expect(result.error).toMatch(/^connection error: .*ECONNREFUSED/);
    expect(result.permanent).toBeUndefined();
  });

  it('reuses a kept-alive connection across sends', async () => {
    for (let i = 0; i < 10; i++) await sendWebhook(args());
    const ports = receiver.received.map((r) => r.remotePort);
    expect(receiver.received).toHaveLength(10);
    // The pool may open a second socket while the first is being released, never one per send.
    expect(new Set(ports).size).toBeLessThanOrEqual(2);
  });

  it('sends credentials in the URL as HTTP Basic auth, not in the request line', async () => {
    const url = receiver.url.replace('http://', 'http://relay%40acme:p%3Ass@');
    expect((await sendWebhook(args({ url }))).ok).toBe(true);
    const [got] = receiver.received;
    expect(got.path).toBe('/hook');
    expect(got.headers.authorization).toBe(`Basic ${Buffer.from('relay@acme:p:ss').toString('base64')}`);
  });

  it('reports an invalid header prefix as an invalid request', async () => {
    const result = await sendWebhook(args({ headerPrefix: 'Bad Prefix' }));
    expect(result).toMatchObject({ ok: false, statusCode: null });
    expect(result.error).toMatch(/^invalid request: /);
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses schemes other than http and https', async () => {
    const result = await sendWebhook(args({ url: 'file:///etc/passwd' }));
    expect(result).toMatchObject({ ok: false, permanent: true, statusCode: null });
    expect(result.error).toMatch(/only http and https/);
  });
});

describe('sendWebhook: SSRF guard (docs/delivery.md#private-networks)', () => {
  const hosts = (port: number) => [
    `http://localhost:${port}/hook`,
    `http://127.0.0.1:${port}/hook`,
    `http://[::1]:${port}/hook`,
    `http://[::ffff:127.0.0.1]:${port}/hook`,
    `http://0x7f.0.0.1:${port}/hook`,
    `http://2130706433:${port}/hook`,
  ];

  it('refuses loopback destinations in production mode, whatever the spelling', async () => {
    for (const url of hosts(receiver.port)) {
      const result = await sendWebhook(args({ url, allowPrivateNetworks: false }));
      expect({ url, ok: result.ok, permanent: result.permanent }).toEqual({ url, ok: false, permanent: true });
      expect(result.error).toMatch(/refused to connect to .*private, loopback or link-local/);
    }
    expect(receiver.received).toHaveLength(0);
  });

  it('allows them in development mode', async () => {
    const result = await sendWebhook(args({ url: `http://localhost:${receiver.port}/hook`, allowPrivateNetworks: true }));
    expect(result.ok).toBe(true);
    expect(receiver.received).toHaveLength(1);
  });

  it('checks at connect time even when a pooled connection to that origin exists', async () => {
    // A connection opened in development mode must not be reused by the guarded pool.
    await sendWebhook(args({ allowPrivateNetworks: true }));
    const result = await sendWebhook(args({ allowPrivateNetworks: false }));
    expect(result.ok).toBe(false);
    expect(receiver.received).toHaveLength(1);
  });

  it('resolves at connect time: a name that now points at loopback is refused (DNS rebinding)', async () => {
    const realLookup = dns.lookup;
    // A name that passed any create-time check now resolves to 127.0.0.1.
    const spy = jest.spyOn(dns, 'lookup').mockImplementation(((host: string, options: unknown, callback: (...a: unknown[]) => void) => {
      if (host !== 'rebound.example.test') return (realLookup as (...a: unknown[]) => void)(host, options, callback);
      const all = typeof options === 'object' && (options as { all?: boolean }).all;
      return all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4);
    }) as unknown as typeof dns.lookup);
    try {
      const url = `http://rebound.example.test:${receiver.port}/hook`;
      const refused = await sendWebhook(args({ url, allowPrivateNetworks: false }));
      expect(refused).toMatchObject({ ok: false, permanent: true });
      expect(refused.error).toContain('refused to connect to rebound.example.test (127.0.0.1)');
      expect(receiver.received).toHaveLength(0);
      // Development mode connects to the same name: it really resolves to the receiver.
      expect((await sendWebhook(args({ url, allowPrivateNetworks: true }))).ok).toBe(true);
      expect(receiver.received).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
  });
});
