import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApiClient, backoffMs, type Clock, needsRefresh, reconnectWait, REFRESH_MARGIN_MS } from './api-client';
import { CliError, EXIT } from './cli-errors';
import { ConfigStore } from './config-store';

const API = 'http://api.test';
const failure = (promise: Promise<unknown>): Promise<CliError> =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (err: CliError) => err,
  );
type Call = { query: string; variables: Record<string, unknown>; authorization?: string };

/** A fake API: answers `refreshToken` with new tokens (or refuses), and everything else by `answer`. */
function fakeApi(opts: { refuseRefresh?: boolean; answer?: (call: Call) => { status?: number; body: unknown } } = {}) {
  const calls: Call[] = [];
  let issued = 0;
  const impl = (async (_url: string, init: RequestInit) => {
    const { query, variables } = JSON.parse(String(init.body));
    const call = { query, variables, authorization: (init.headers as Record<string, string>).authorization };
    calls.push(call);
    let status = 200;
    let body: unknown;
    if (query.includes('refreshToken(')) {
      await new Promise((r) => setTimeout(r, 10));
      body = opts.refuseRefresh
        ? { errors: [{ message: 'The refresh token was already used: log in again.', extensions: { code: 'refresh_token_reused', status: 401 } }] }
        : { data: { refreshToken: { accessToken: `at-${++issued}`, refreshToken: `rt-${issued}`, expiresIn: 900, user: { id: 'u', email: 'e@x' } } } };
    } else {
      ({ status = 200, body } = opts.answer!(call));
    }
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  }) as unknown as typeof fetch;
  return { impl, calls };
}

describe('the API client', () => {
  let home: string;
  let store: ConfigStore;
  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-api-'));
    store = new ConfigStore(path.join(home, 'relay', 'config.json'));
  });
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  const login = (expiresInMs: number) =>
    store.write({ api_url: API, access_token: 'at-0', refresh_token: 'rt-0', access_token_expires_at: new Date(Date.now() + expiresInMs).toISOString() });
  const ok = (call: Call) => ({ body: { data: { me: { email: call.authorization } } } });

  it('refreshes shortly before expiry', () => {
    expect(needsRefresh({ api_url: API, access_token_expires_at: new Date(Date.now() + REFRESH_MARGIN_MS + 5_000).toISOString() })).toBe(false);
    expect(needsRefresh({ api_url: API, access_token_expires_at: new Date(Date.now() + REFRESH_MARGIN_MS - 5_000).toISOString() })).toBe(true);
  });

  it('uses a fresh token as is, and refreshes (once, for concurrent calls) one about to expire, storing the new pair', async () => {
    login(600_000);
    const fresh = fakeApi({ answer: ok });
    expect(await new ApiClient(API, store, fresh.impl).request('{ me { email } }')).toEqual({ me: { email: 'Bearer at-0' } });
    expect(fresh.calls).toHaveLength(1);

    login(1_000);
    const api = fakeApi({ answer: ok });
    const client = new ApiClient(API, store, api.impl);
    const answers = await Promise.all([client.request('{ me { email } }'), client.request('{ me { email } }')]);
    expect(answers).toEqual([{ me: { email: 'Bearer at-1' } }, { me: { email: 'Bearer at-1' } }]);
    expect(api.calls.filter((c) => c.query.includes('refreshToken('))).toHaveLength(1);
    expect(store.read()).toMatchObject({ api_url: API, access_token: 'at-1', refresh_token: 'rt-1' });
    expect((fs.statSync(store.file).mode & 0o777).toString(8)).toBe('600');
  });

  it('refreshes once after a 401 and repeats the request', async () => {
    login(600_000);
    const api = fakeApi({
      answer: (call) =>
        call.authorization === 'Bearer at-0'
          ? { body: { errors: [{ message: 'The access token has expired.', extensions: { code: 'token_expired', status: 401 } }] } }
          : ok(call),
    });
    expect(await new ApiClient(API, store, api.impl).request('{ me { email } }')).toEqual({ me: { email: 'Bearer at-1' } });
    expect(api.calls.map((c) => (c.query.includes('refreshToken(') ? 'refresh' : c.authorization))).toEqual(['Bearer at-0', 'refresh', 'Bearer at-1']);
  });

  it('says "refresh failed (session expired, login again)" when the refresh is refused', async () => {
    login(1_000);
    const api = fakeApi({ refuseRefresh: true, answer: ok });
    const err = await failure(new ApiClient(API, store, api.impl).request('{ me { email } }'));
    expect(err).toBeInstanceOf(CliError);
    expect(err.message).toMatch(/^refresh failed \(session expired, login again\)/);
    expect(err.exitCode).toBe(EXIT.notLoggedIn);
  });

  it('says "not logged in" without tokens or for another API, and names the URL it could not reach', async () => {
    const api = fakeApi({ answer: ok });
    await expect(new ApiClient(API, store, api.impl).request('{ me { email } }')).rejects.toThrow('not logged in: run `relay login` first');
    login(600_000);
    await expect(new ApiClient('http://other.test', store, api.impl).request('{ me { email } }')).rejects.toThrow(/not logged in to http:\/\/other\.test/);

    const down = (async () => {
      throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    }) as unknown as typeof fetch;
    const err = await failure(new ApiClient(API, store, down).request('{ me { email } }'));
    expect(err.message).toBe('API unreachable at http://api.test/graphql (ECONNREFUSED): is the service running? (--api-url or RELAY_API_URL to use another)');
    expect(err.exitCode).toBe(EXIT.unreachable);
  });

  it('backs off exponentially up to 10 s between reconnections', () => {
    expect([0, 1, 2, 3, 10].map((n) => backoffMs(n, () => 0.5))).toEqual([500, 1000, 2000, 4000, 10_000]);
    expect(backoffMs(0, () => 0)).toBe(400);
    expect(backoffMs(0, () => 1)).toBe(600);
  });
});

describe('reconnectWait', () => {
  /** A clock that moves only when slept on, and a /readyz that answers 200 from `readyAt` on (never when null). */
  const run = async (retries: number, readyAt: number | null, outage = { sawDown: false }) => {
    let now = 0;
    const clock: Clock = { now: () => now, sleep: async (ms) => void (now += ms) };
    const probes: number[] = [];
    await reconnectWait(retries, outage, async () => (probes.push(now), readyAt !== null && now >= readyAt), clock, () => 0.5);
    return { waited: now, probes, outage };
  };

  it('reconnects at the first probe that finds the API ready again, not at the end of a long backoff', async () => {
    // The 6th attempt waits 10 s; the API went away and is ready again 2.5 s into the wait.
    const { waited, probes } = await run(5, 2_500);
    expect(probes).toEqual([1_000, 2_000, 3_000]);
    expect(waited).toBe(3_000);
  });

  it('keeps the backoff while the API stays down, probing it each second', async () => {
    const { waited, probes, outage } = await run(4, null);
    expect(waited).toBe(8_000);
    expect(probes).toEqual([1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000]);
    expect(outage.sawDown).toBe(true);
  });

  it('keeps the backoff when the API never went down (it refuses the socket for another reason)', async () => {
    const { waited } = await run(4, 0);
    expect(waited).toBe(8_000);
  });

  it('a short backoff ends before any probe', async () => {
    expect(await run(0, 0)).toMatchObject({ waited: 500, probes: [] });
  });
});
