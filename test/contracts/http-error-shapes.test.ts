import net from 'node:net';
import { rest, startTestApi, type TestApi } from '../support/api';
import { createEndpoint, createWorkspace } from '../support/factories';
import { eventually } from '../support/live-client';

/** Sends raw bytes and resolves with everything the server wrote before closing (or after `settleMs` of silence). */
function rawExchange(baseUrl: string, request: string | Buffer, opts: { hangUpAfterWrite?: boolean } = {}): Promise<string> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (err) => (opts.hangUpAfterWrite ? resolve('') : reject(err)));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString()));
    socket.write(request, () => {
      if (opts.hangUpAfterWrite) setTimeout(() => socket.destroy(), 100);
    });
  });
}

const parseResponse = (raw: string) => {
  const [head, ...rest] = raw.split('\r\n\r\n');
  const [statusLine, ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(rest.join('\r\n\r\n')) };
};

/** Every answer the service writes has the docs/api.md#errors JSON error shape, including those Koa's router and Node's parser produce. */
describe('HTTP error shapes outside the routes', () => {
  let api: TestApi;
  let slug: string;

  beforeAll(async () => {
    api = await startTestApi();
    const em = api.container.orm.em.fork();
    const { project } = await createWorkspace(em, { plan: 'growth' });
    slug = (await createEndpoint(api.container, em, project)).endpoint.slug;
  });
  afterAll(() => api.close());

  it('answers an unknown path, a wrong method and TRACE (405, not a 5xx) with JSON error bodies', async () => {
    const unknown = await rest(api.baseUrl, 'GET', '/nowhere');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'route_not_found' });
    const wrongMethod = await rest(api.baseUrl, 'PUT', `/hooks/${slug}`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('content-type')).toMatch(/application\/json/);
    expect(wrongMethod.headers.get('allow')).toContain('POST');
    expect(wrongMethod.body.error).toMatchObject({ code: 'method_not_allowed', message: expect.stringContaining('POST') });
    const trace = parseResponse(await rawExchange(api.baseUrl, 'TRACE /v1/projects HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    expect(trace.status).toBe(405);
    expect(trace.headers['content-type']).toMatch(/application\/json/);
    expect(trace.body.error).toMatchObject({ code: 'method_not_allowed', message: expect.stringContaining('TRACE') });
  });

  it('answers oversized headers with a JSON 431 and a malformed request with a JSON 400', async () => {
    const big = parseResponse(await rawExchange(api.baseUrl, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(big.status).toBe(431);
    expect(big.headers['content-type']).toMatch(/application\/json/);
    expect(big.body.error).toMatchObject({ code: 'request_headers_too_large' });
    const garbage = parseResponse(await rawExchange(api.baseUrl, 'NOT HTTP AT ALL\r\n\r\n'));
    expect(garbage.status).toBe(400);
    expect(garbage.body.error).toMatchObject({ code: 'malformed_request' });
  });

  it('counts a sender that hangs up mid-body as a client abort, not a 503', async () => {
    const metric = async (status: string) => {
      const text = (await rest(api.baseUrl, 'GET', '/metrics')).text;
      return Number(new RegExp(`relay_ingress_requests_total\\{status="${status}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
    };
    const before503 = await metric('503');
    await rawExchange(api.baseUrl, `POST /hooks/${slug} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"partial": `, { hangUpAfterWrite: true });
    await eventually(async () => (await metric('client_aborted')) === 1);
    expect(await metric('503')).toBe(before503);
  });
});
