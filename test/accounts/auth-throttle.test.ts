import { startTestApi, type TestApi, rest } from '../support/api';
import { PASSWORD, RecordingClient, signup, uniqueEmail } from '../support/accounts';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestDatabase, type TestDatabase } from '../support/test-env';

const LIMITS = {
  RELAY_LOGIN_MAX_FAILURES: '3',
  RELAY_LOGIN_LOCKOUT_SECONDS: '30',
  RELAY_AUTH_IP_LIMIT: '5',
  RELAY_AUTH_IP_WINDOW_SECONDS: '600',
};

const wrongLogin = (baseUrl: string, email: string, headers: Record<string, string> = {}) =>
  rest(baseUrl, 'POST', '/v1/auth/login', { body: { email, password: 'not the password' }, headers });

function expectThrottled(res: { status: number; headers: Headers; body: any }, scope: 'account' | 'ip'): void {
  expect(res.status).toBe(429);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(res.body.error).toMatchObject({ code: 'rate_limited', message: expect.stringMatching(/retry after|locked for/), details: { limit_scope: scope } });
}

describe('sign-in throttle', () => {
  describe('one API process, X-Forwarded-For not trusted (the default)', () => {
    let api: TestApi;
    let client: RecordingClient;

    beforeAll(async () => {
      api = await startTestApi({ ...LIMITS, RELAY_AUTH_IP_LIMIT: '0' });
      client = new RecordingClient(api.baseUrl);
    });
    afterAll(() => api.close());

    it('locks an account after N failed logins: concurrent guesses included, the right password included', async () => {
      const { user } = await signup(client);
      const guesses = await Promise.all(Array.from({ length: 20 }, () => wrongLogin(api.baseUrl, user.email)));
      expect(guesses.filter((g) => g.status === 401)).toHaveLength(3);
      expect(guesses.filter((g) => g.status === 429)).toHaveLength(17);
      expectThrottled(guesses.find((g) => g.status === 429)!, 'account');
      const right = await client.rest('POST', '/v1/auth/login', { body: { email: user.email, password: PASSWORD } });
      expectThrottled(right, 'account');
      // GraphQL's login goes through the same service.
      const g = await client.gql('mutation($e: String!, $p: String!) { login(email: $e, password: $p) { accessToken } }', { e: user.email, p: PASSWORD });
      expect(g.errors?.[0].extensions).toMatchObject({ code: 'rate_limited', status: 429 });
    });

    it('a success clears the failures of an account that was not locked', async () => {
      const { user } = await signup(client);
      for (let i = 0; i < 2; i++) expect((await wrongLogin(api.baseUrl, user.email)).status).toBe(401);
      expect((await client.rest('POST', '/v1/auth/login', { body: { email: user.email, password: PASSWORD } })).status).toBe(200);
      for (let i = 0; i < 2; i++) expect((await wrongLogin(api.baseUrl, user.email)).status).toBe(401);
      expect((await client.rest('POST', '/v1/auth/login', { body: { email: user.email, password: PASSWORD } })).status).toBe(200);
    });
  });

  describe('per client IP', () => {
    let direct: TestApi;
    let proxied: TestApi;

    beforeAll(async () => {
      [direct, proxied] = await Promise.all([startTestApi(LIMITS), startTestApi({ ...LIMITS, RELAY_TRUST_PROXY: '1' })]);
    });
    afterAll(() => Promise.all([direct.close(), proxied.close()]));

    it('refuses failed logins over the limit from one address; a spoofed X-Forwarded-For does not evade it', async () => {
      const answers = [];
      for (let i = 0; i < 7; i++) answers.push(await wrongLogin(direct.baseUrl, uniqueEmail(), { 'x-forwarded-for': `203.0.113.${i}` }));
      expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 429, 429]);
      expectThrottled(answers[5], 'ip');
    });

    it('honours X-Forwarded-For from a trusted proxy: the client is the entry the proxy appended', async () => {
      // Each client behind the proxy has its own allowance; what a client writes itself (the first entry) is ignored.
      for (let i = 0; i < 7; i++) expect((await wrongLogin(proxied.baseUrl, uniqueEmail(), { 'x-forwarded-for': `198.51.100.1, 203.0.113.${i}` })).status).toBe(401);
      const one = [];
      for (let i = 0; i < 6; i++) one.push(await wrongLogin(proxied.baseUrl, uniqueEmail(), { 'x-forwarded-for': `198.51.100.${i}, 203.0.113.50` }));
      expect(one.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 429]);
    });

    it('limits signups and failed refreshes per address too', async () => {
      const signups = [];
      for (let i = 0; i < 6; i++) signups.push(await rest(direct.baseUrl, 'POST', '/v1/auth/signup', { body: { email: uniqueEmail(), password: PASSWORD } }));
      expect(signups.map((s) => s.status)).toEqual([201, 201, 201, 201, 201, 429]);
      expectThrottled(signups[5], 'ip');
      const refreshes = [];
      for (let i = 0; i < 6; i++) refreshes.push(await rest(direct.baseUrl, 'POST', '/v1/auth/refresh', { body: { refresh_token: `rt_guess${i}` } }));
      expect(refreshes.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 429]);
    });

    it('does not count successful refreshes', async () => {
      let session = (await rest(proxied.baseUrl, 'POST', '/v1/auth/signup', { body: { email: uniqueEmail(), password: PASSWORD }, headers: { 'x-forwarded-for': '192.0.2.10' } })).body;
      for (let i = 0; i < 8; i++) {
        const res = await rest(proxied.baseUrl, 'POST', '/v1/auth/refresh', { body: { refresh_token: session.refresh_token }, headers: { 'x-forwarded-for': '192.0.2.10' } });
        expect(res.status).toBe(200);
        session = res.body;
      }
    });
  });

  describe('two API processes', () => {
    let db: TestDatabase;
    let services: ServiceProcess[] = [];

    beforeAll(async () => {
      db = await createTestDatabase();
      services = await Promise.all([0, 1].map(() => startServiceProcess({ databaseUrl: db.url, command: 'api', env: LIMITS })));
    }, 120_000);
    afterAll(async () => {
      await Promise.all(services.map((s) => s.stop()));
      await db.drop();
    });

    it('share the account and IP counters', async () => {
      const [a, b] = services.map((s) => s.baseUrl);
      const email = uniqueEmail();
      expect((await rest(a, 'POST', '/v1/auth/signup', { body: { email, password: PASSWORD } })).status).toBe(201);
      const statuses = [];
      for (const url of [a, b, a, b]) statuses.push((await wrongLogin(url, email)).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
      // The address's failed logins so far: 4 (the refused one counts too); one more reaches the limit of 5.
      expect((await wrongLogin(b, uniqueEmail())).status).toBe(401);
      expectThrottled(await wrongLogin(a, uniqueEmail()), 'ip');
    });
  });
});
