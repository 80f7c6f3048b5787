import net from 'node:net';
import { Client } from 'undici';
import { startTestApi, type TestApi } from '../support/api';
import { createEndpoint, createWorkspace } from '../support/factories';

/** A raw keep-alive connection that reads one HTTP/1.1 response at a time (Content-Length framed), and notices the server's close. */
class RawConnection {
  private readonly socket: net.Socket;
  private buffer = Buffer.alloc(0);
  private waiter?: () => void;
  /** The server sent its FIN (it may still hold the socket half-open). */
  ended = false;
  /** The socket is gone on both sides. */
  closed = false;

  constructor(port: number) {
    // Half-open allowed, as a slowloris client would: our side does not close just because the server ended its side.
    this.socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    this.socket.on('data', (chunk) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiter?.();
    });
    this.socket.on('error', () => undefined);
    this.socket.on('end', () => {
      this.ended = true;
      this.waiter?.();
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.waiter?.();
    });
  }

  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(data, (err) => (err ? reject(err) : resolve())));
  }

  /** The next response, or null when the server closed the connection (or said nothing within `ms`). */
  async response(ms = 10_000): Promise<{ status: number; headers: Record<string, string>; body: string } | null> {
    const deadline = Date.now() + ms;
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end >= 0) {
        const [statusLine, ...lines] = this.buffer.subarray(0, end).toString().split('\r\n');
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        const length = Number(headers['content-length'] ?? 0);
        if (this.buffer.length >= end + 4 + length) {
          const body = this.buffer.subarray(end + 4, end + 4 + length).toString();
          this.buffer = this.buffer.subarray(end + 4 + length);
          return { status: Number(statusLine.split(' ')[1]), headers, body };
        }
      }
      if (this.ended || this.closed || Date.now() >= deadline) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Resolves true when, within `ms`, the server ended its side (`'ended'`) or the socket is gone (`'closed'`). */
  async within(ms: number, what: 'ended' | 'closed'): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!this[what] && !this.closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    return this[what] || this.closed;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

const LIMIT = 2048;

/** Chunked body of `size` bytes in 512-byte chunks, with the terminating chunk. */
function chunked(size: number): string {
  let out = '';
  for (let sent = 0; sent < size; sent += 512) {
    const part = 'a'.repeat(Math.min(512, size - sent));
    out += `${part.length.toString(16)}\r\n${part}\r\n`;
  }
  return `${out}0\r\n\r\n`;
}

describe('HTTP connections after an error answer', () => {
  let api: TestApi;
  let port: number;
  let slug: string;

  beforeAll(async () => {
    api = await startTestApi({ RELAY_MAX_BODY_BYTES: String(LIMIT), RELAY_HTTP_HEADERS_TIMEOUT_MS: '1000', RELAY_HTTP_REQUEST_TIMEOUT_MS: '2000' });
    port = api.server.port;
    const em = api.container.orm.em.fork();
    const { project } = await createWorkspace(em, { plan: 'growth' });
    slug = (await createEndpoint(api.container, em, project)).endpoint.slug;
  });
  afterAll(() => api.close());

  const healthz = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';

  it.each([
    ['POST /hooks/:slug', () => `/hooks/${slug}`],
    ['POST /v1/endpoints', () => '/v1/endpoints'],
  ])('%s: a chunked over-limit body on keep-alive gets its 413, then the connection answers the next request or is closed', async (_name, path) => {
    for (const size of [LIMIT + 1000, 64 * 1024]) {
      const conn = new RawConnection(port);
      await conn.write(`POST ${path()} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(size)}`);
      const first = await conn.response();
      expect(first?.status).toBe(413);
      expect(JSON.parse(first!.body).error).toMatchObject({ code: 'payload_too_large' });
      const keptOpen = first!.headers.connection !== 'close';
      await conn.write(healthz).catch(() => undefined);
      const second = await conn.response();
      if (keptOpen) expect(second?.status).toBe(200);
      else {
        expect(second).toBeNull();
        expect(await conn.within(2000, 'ended')).toBe(true);
      }
      conn.destroy();
    }
  });

  it('a Content-Length over-limit body on keep-alive still gets its 413 and a usable (or closed) connection', async () => {
    const conn = new RawConnection(port);
    await conn.write(`POST /hooks/${slug} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${LIMIT + 10}\r\n\r\n${'a'.repeat(LIMIT + 10)}`);
    const first = await conn.response();
    expect(first?.status).toBe(413);
    await conn.write(healthz).catch(() => undefined);
    const second = await conn.response();
    if (first!.headers.connection !== 'close') expect(second?.status).toBe(200);
    else expect(await conn.within(2000, 'ended')).toBe(true);
    conn.destroy();
  });

  it('answers oversized headers with 431 on a reused keep-alive connection too (undici, one connection, 20 times)', async () => {
    const client = new Client(api.baseUrl, { pipelining: 1 });
    let connections = 0;
    client.on('connect', () => connections++);
    try {
      for (let i = 0; i < 20; i++) {
        const ok = await client.request({ method: 'GET', path: '/healthz' });
        expect(ok.statusCode).toBe(200);
        await ok.body.text();
        // Sent on the socket the 200 came over, kept alive by it.
        const big = await client.request({ method: 'GET', path: '/v1/projects', headers: { 'x-big': 'a'.repeat(20 * 1024) } });
        expect(big.statusCode).toBe(431);
        expect(big.headers.connection).toBe('close');
        expect(((await big.body.json()) as { error: unknown }).error).toMatchObject({ code: 'request_headers_too_large' });
      }
      // One connection per round: each 200 left its socket open for the 431, which then closed it.
      expect(connections).toBe(20);
    } finally {
      await client.close();
    }
  });

  it('answers a malformed request with 400 on a reused keep-alive connection', async () => {
    const conn = new RawConnection(port);
    await conn.write(healthz);
    expect((await conn.response())?.status).toBe(200);
    await conn.write('NOT HTTP AT ALL\r\n\r\n');
    const answer = await conn.response();
    expect(answer?.status).toBe(400);
    expect(answer?.headers.connection).toBe('close');
    expect(JSON.parse(answer!.body).error).toMatchObject({ code: 'malformed_request' });
    expect(await conn.within(5000, 'ended')).toBe(true);
    conn.destroy();
  });

  it('destroys the socket of a client whose headers never finish (slowloris) after its 408', async () => {
    const conn = new RawConnection(port);
    await conn.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const drip = setInterval(() => void conn.write('X-Drip: 1\r\n').catch(() => undefined), 200);
    try {
      const answer = await conn.response(8000);
      expect(answer?.status).toBe(408);
      expect(JSON.parse(answer!.body).error).toMatchObject({ code: 'request_timeout' });
      // The client keeps its side open and keeps dripping: once the server has destroyed its socket, a drip is answered
      // with a reset and the socket closes here; a server that only half-closed keeps reading and ignoring them (FIN-WAIT-2).
      expect(await conn.within(5000, 'closed')).toBe(true);
    } finally {
      clearInterval(drip);
      conn.destroy();
    }
  });

  it('destroys the socket of a request whose body never finishes (request timeout) after its 408', async () => {
    const conn = new RawConnection(port);
    await conn.write(`POST /hooks/${slug} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":`);
    const drip = setInterval(() => void conn.write(' ').catch(() => undefined), 200);
    try {
      const answer = await conn.response(10_000);
      expect(answer?.status).toBe(408);
      expect(await conn.within(5000, 'closed')).toBe(true);
    } finally {
      clearInterval(drip);
      conn.destroy();
    }
  });
});
