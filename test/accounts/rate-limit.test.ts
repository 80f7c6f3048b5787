import { ApiKey } from '../../src/api-keys/api-key.entity';
import { hashToken } from '../../src/common/secret-box';
import { startApiServer } from '../../src/http/server';
import { rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { createWorkspace } from '../support/factories';

describe('management API rate limit', () => {
  let api: TestApi;
  beforeAll(async () => {
    // An hour-long window so that no test straddles a window boundary in practice.
    api = await startTestApi({ RELAY_API_RATE_LIMIT: '3', RELAY_API_RATE_WINDOW_SECONDS: '3600' });
  });
  afterAll(() => api.close());

  it('answers 429 with Retry-After and the error body once a credential spends its window', async () => {
    const em = api.container.orm.em.fork();
    const ws = await createWorkspace(em);
    const token = await tokenFor(api.container, ws.user.id);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await rest(api.baseUrl, 'GET', '/v1/me', { token })).status);
    expect(statuses).toEqual([200, 200, 200]);
    const limited = await rest(api.baseUrl, 'POST', '/graphql', { token, body: { query: '{ me { id } }' } });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(limited.body.error).toMatchObject({ code: 'rate_limited', details: { retry_after_seconds: retryAfter, limit: 3, window_seconds: 3600 } });

    // Another credential (a project API key) has its own budget; so does an anonymous caller's IP.
    const key = 'svc_ratelimit_0123456789abcdefghij';
    em.create(ApiKey, { project: ws.project, name: 'k', prefix: key.slice(0, 12), keyHash: hashToken(key) });
    await em.flush();
    expect((await rest(api.baseUrl, 'GET', '/v1/api-keys', { token: key })).status).toBe(200);
    expect((await rest(api.baseUrl, 'GET', '/v1/openapi.json')).status).toBe(200);
    // Ingress is not the management API: not counted here.
    expect((await rest(api.baseUrl, 'GET', '/healthz')).status).not.toBe(429);
  });

  it('shares the count between API processes on one database', async () => {
    const em = api.container.orm.em.fork();
    const ws = await createWorkspace(em);
    const token = await tokenFor(api.container, ws.user.id);
    const second = await startApiServer(api.container, 0, '127.0.0.1');
    try {
      const statuses = [];
      for (const base of [api.baseUrl, second.url, api.baseUrl, second.url]) statuses.push((await rest(base, 'GET', '/v1/me', { token })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await second.close();
    }
  });

  it('refuses a credential over its budget from memory: further refusals cost no query and count nothing more', async () => {
    const ws = await createWorkspace(api.container.orm.em.fork());
    const token = await tokenFor(api.container, ws.user.id);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await rest(api.baseUrl, 'GET', '/v1/me', { token })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
    const [row] = await api.container.orm.em.getConnection().execute<Array<{ points: number }>>('select points from management_rate_limits where key = ?', [`v1:user:${ws.user.id}`]);
    expect(row.points).toBe(4);
  });

  it('keeps limiting in memory while PostgreSQL cannot count (insurance limiter), never answering 500', async () => {
    const ws = await createWorkspace(api.container.orm.em.fork());
    const token = await tokenFor(api.container, ws.user.id);
    const connection = api.container.orm.em.getConnection();
    await connection.execute('alter table management_rate_limits rename to management_rate_limits_away');
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await rest(api.baseUrl, 'GET', '/v1/me', { token })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await connection.execute('alter table management_rate_limits_away rename to management_rate_limits');
    }
  });
});
