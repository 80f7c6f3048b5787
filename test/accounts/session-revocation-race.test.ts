import { hashPassword } from '../../src/accounts/account.service';
import { startSession } from '../../src/accounts/session.service';
import { RefreshToken } from '../../src/auth/refresh-token.entity';
import { OrganizationMember } from '../../src/organizations/organization-member.entity';
import { User } from '../../src/users/user.entity';
import { startTestApi, type TestApi } from '../support/api';
import { PASSWORD, RecordingClient, type Session, signup, uniqueEmail } from '../support/accounts';

const TRIALS = 50;
/** Sessions of the user that keep refreshing while their sessions are ended. */
const REFRESHERS = 3;
/** Fifty trials of argon2 work (the password checks and hashes) on a loaded machine: generous; no assertion depends on time. */
const TIMEOUT_MS = 900_000;

/**
 * Password changes, removals from an organization and logouts race refreshes of the sessions they
 * end, against the real API: no session may survive (a refresh that starts after the ending
 * answered must fail, and no live refresh token of the user may remain).
 */
describe('ending sessions while they refresh', () => {
  let api: TestApi;
  let client: RecordingClient;

  beforeAll(async () => {
    // Every refresh after the revocation is a failed refresh from one address, every login with the old password that
    // comes after the change a failed login, and thousands of refreshes come from that one address within a minute:
    // neither throttle is what this measures.
    api = await startTestApi({ RELAY_AUTH_IP_LIMIT: '0', RELAY_LOGIN_MAX_FAILURES: '0', RELAY_API_RATE_LIMIT: '0' });
    client = new RecordingClient(api.baseUrl);
  });
  afterAll(() => api.close());

  const refresh = (token: string) => client.rest('POST', '/v1/auth/refresh', { body: { refresh_token: token } });

  /** Sessions of `user` as sign-ins make them (without an argon2 check per session: only the race matters here). */
  const sessionsOf = (user: User, count = REFRESHERS): Promise<Session[]> =>
    Promise.all(Array.from({ length: count }, () => startSession(api.container.orm.em.fork(), api.container, user)));

  const liveTokens = (userId: string) => api.container.orm.em.fork().count(RefreshToken, { user: userId, revokedAt: null });

  /**
   * Rotates `token` over and over until `ended()` says the ending answered, then once more; returns
   * the statuses of the refreshes started after that answer.
   */
  async function keepRefreshing(token: string, ended: () => boolean): Promise<number[]> {
    let current = token;
    for (;;) {
      const after = ended();
      const res = await refresh(current);
      if (after) return [res.status];
      if (res.status !== 200) return [];
      current = res.body.refresh_token;
    }
  }

  /** Runs `end` while every session refreshes; expects every refresh started after it answered to be refused. */
  async function race(sessions: Session[], end: () => Promise<void>): Promise<void> {
    let ended = false;
    const [, ...afterwards] = await Promise.all([
      end().then(() => {
        ended = true;
      }),
      ...sessions.map((s) => keepRefreshing(s.refresh_token, () => ended)),
    ]);
    expect(afterwards.flat().filter((status) => status !== 401)).toEqual([]);
  }

  it(`a password change ends every session, a refreshing one and a login with the old password included (${TRIALS} trials)`, async () => {
    const email = uniqueEmail('pw');
    const em = api.container.orm.em.fork();
    const user = em.create(User, { email, name: null, passwordHash: await hashPassword(PASSWORD) });
    await em.flush();
    let password = PASSWORD;
    for (let trial = 0; trial < TRIALS; trial++) {
      const sessions = await sessionsOf(user);
      const next = `${PASSWORD} ${trial}`;
      let oldPasswordLogin: Session | undefined;
      await race(sessions, async () => {
        const [changed, late] = await Promise.all([
          client.rest('PATCH', '/v1/me', { token: sessions[0].access_token, body: { password: next, current_password: password } }),
          client.rest('POST', '/v1/auth/login', { body: { email, password } }),
        ]);
        expect(changed.status).toBe(200);
        // A login with the old password that overlapped the change may succeed, but its session must end with the change.
        expect([200, 401]).toContain(late.status);
        if (late.status === 200) oldPasswordLogin = late.body;
      });
      if (oldPasswordLogin) expect((await refresh(oldPasswordLogin.refresh_token)).status).toBe(401);
      expect(await liveTokens(user.id)).toBe(0);
      password = next;
    }
  }, TIMEOUT_MS);

  it('a login with the old password whose check overlaps the change is refused, whichever commits first', async () => {
    const email = uniqueEmail('overlap');
    const em = api.container.orm.em.fork();
    const user = em.create(User, { email, name: null, passwordHash: await hashPassword(PASSWORD) });
    await em.flush();
    const [session] = await sessionsOf(user, 1);
    const lockKey = `refresh-user:${user.id}`;
    /** Until `count` requests queue for the user's session lock (PostgreSQL grants an advisory lock to its waiters in order). */
    const waiting = async (count: number) => {
      const sql = `select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted
                   and ((classid::bigint << 32) | objid::bigint) = hashtextextended(?, 0)`;
      while ((await api.container.orm.em.fork().execute<Array<{ n: number }>>(sql, [lockKey]))[0].n < count) await new Promise((r) => setTimeout(r, 20));
    };
    // Hold the user's session lock so that the interleaving is fixed: the change queues for it first, then the login,
    // whose password check (against the hash not yet changed) passes, queues behind it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    const holder = api.container.orm.em.fork().transactional(async (tem) => {
      await tem.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [lockKey]);
      locked();
      await held;
    });
    await holding;
    const change = client.rest('PATCH', '/v1/me', { token: session.access_token, body: { password: `${PASSWORD} new`, current_password: PASSWORD } });
    await waiting(1);
    const login = client.rest('POST', '/v1/auth/login', { body: { email, password: PASSWORD } });
    await waiting(2);
    release();
    await holder;
    expect((await change).status).toBe(200);
    const late = await login;
    expect(late.status).toBe(401);
    expect(late.body.error.code).toBe('invalid_credentials');
    expect(await liveTokens(user.id)).toBe(0);
  });

  it(`removal from an organization ends every session of the removed member (${TRIALS} trials)`, async () => {
    const owner = await signup(client);
    const orgs = await client.rest('GET', '/v1/organizations', { token: owner.access_token });
    const org = orgs.body.data[0].id as string;
    for (let trial = 0; trial < TRIALS; trial++) {
      const em = api.container.orm.em.fork();
      const user = em.create(User, { email: uniqueEmail('member'), name: null, passwordHash: null });
      const member = em.create(OrganizationMember, { organization: org, user, role: 'developer' });
      await em.flush();
      await race(await sessionsOf(user), async () => {
        const removed = await client.rest('DELETE', `/v1/organizations/${org}/members/${member.id}`, { token: owner.access_token });
        expect(removed.status).toBe(204);
      });
      expect(await liveTokens(user.id)).toBe(0);
    }
  }, TIMEOUT_MS);

  it(`logout ends the session it is given, however its refreshes interleave (${TRIALS} trials)`, async () => {
    const em = api.container.orm.em.fork();
    const user = em.create(User, { email: uniqueEmail('logout'), name: null, passwordHash: null });
    await em.flush();
    for (let trial = 0; trial < TRIALS; trial++) {
      const [session, other] = await sessionsOf(user, 2);
      await race([session], async () => {
        const out = await client.rest('POST', '/v1/auth/logout', { body: { refresh_token: session.refresh_token } });
        expect(out.status).toBe(204);
      });
      // Logout ends that session (its refresh-token family) only: the user's other sessions go on.
      const goesOn = await refresh(other.refresh_token);
      expect(goesOn.status).toBe(200);
      await client.rest('POST', '/v1/auth/logout', { body: { refresh_token: goesOn.body.refresh_token } });
      expect(await liveTokens(user.id)).toBe(0);
    }
  }, TIMEOUT_MS);
});
