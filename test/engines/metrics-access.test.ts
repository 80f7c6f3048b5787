import { startApiProcess } from '../../src/app/processes';
import { freePort } from '../support/free-port';
import { createTestContainer, type TestContainer } from '../support/test-env';

/**
 * Issue 35: `/metrics` is not served to anyone who reaches the public port. In production the API's
 * own port answers 404 for it and Prometheus scrapes the metrics listener (RELAY_METRICS_PORT); with
 * RELAY_METRICS_TOKEN every `/metrics` needs the token. The health checks need nothing.
 */
describe('/metrics exposure in production', () => {
  const production = { NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://relay.example.com', RELAY_DRAIN_DELAY_MS: '0' };

  async function startApi(env: Record<string, string>): Promise<{ t: TestContainer; api: string; metrics: string }> {
    const metricsPort = await freePort();
    const t = await createTestContainer({ ...production, RELAY_METRICS_PORT: String(metricsPort), ...env });
    const server = await startApiProcess(t.container, 0);
    return { t, api: server.url, metrics: `http://127.0.0.1:${metricsPort}` };
  }
  const get = async (url: string, token?: string) => {
    const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  let running: TestContainer[] = [];
  afterEach(async () => {
    await Promise.all(running.map((t) => t.close()));
    running = [];
  });

  it('keeps /metrics off the public port and serves it, with the health checks, on the metrics port', async () => {
    const { t, api, metrics } = await startApi({});
    running.push(t);
    const pub = await get(`${api}/metrics`);
    expect(pub.status).toBe(404);
    expect(JSON.parse(pub.text).error).toMatchObject({ code: 'not_found', message: expect.stringContaining('RELAY_METRICS_PORT') });
    expect(pub.text).not.toMatch(/relay_/);
    // The rest of the public port is untouched.
    expect((await get(`${api}/healthz`)).status).toBe(200);

    const scraped = await get(`${metrics}/metrics`);
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toMatch(/text\/plain/);
    expect(scraped.text).toMatch(/^# TYPE relay_ingress_requests_total counter$/m);
    expect(await get(`${metrics}/readyz`)).toMatchObject({ status: 200 });
    expect(await get(`${metrics}/healthz`)).toMatchObject({ status: 200 });
    // Only those three: the API itself is not on the metrics port.
    expect((await get(`${metrics}/v1/projects`)).status).toBe(404);
  });

  it('with RELAY_METRICS_TOKEN, serves /metrics on either port only to holders of the token', async () => {
    const token = 'm'.repeat(12) + '-metrics-token';
    const { t, api, metrics } = await startApi({ RELAY_METRICS_TOKEN: token });
    running.push(t);
    for (const base of [api, metrics]) {
      const anonymous = await get(`${base}/metrics`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
      expect(JSON.parse(anonymous.text).error.code).toBe('unauthenticated');
      expect((await get(`${base}/metrics`, `${token}x`)).status).toBe(401);
      const scraped = await get(`${base}/metrics`, token);
      expect(scraped.status).toBe(200);
      expect(scraped.text).toMatch(/^# TYPE relay_ingress_requests_total counter$/m);
      // Probes carry no token.
      expect((await get(`${base}/readyz`)).status).toBe(200);
    }
  });

  it('refuses a metrics token shorter than 16 characters', async () => {
    await expect(createTestContainer({ ...production, RELAY_METRICS_TOKEN: 'short' })).rejects.toThrow(/RELAY_METRICS_TOKEN/);
  });
});
