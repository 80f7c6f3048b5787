import { RefreshToken } from '../../src/auth/refresh-token.entity';
import { hashToken } from '../../src/common/secret-box';
import { startTestApi, type TestApi } from '../support/api';
import { RecordingClient, signup } from '../support/accounts';

const GRACE_SECONDS = 30;

/**
 * The reuse grace (RELAY_REFRESH_REUSE_GRACE_SECONDS): a just-rotated refresh token presented again
 * gets the same successor instead of revoking the family; any other reuse still revokes it.
 */
describe('refresh-token reuse grace', () => {
  let api: TestApi;
  let client: RecordingClient;

  beforeAll(async () => {
    api = await startTestApi({ RELAY_AUTH_IP_LIMIT: '0', RELAY_REFRESH_REUSE_GRACE_SECONDS: String(GRACE_SECONDS) });
    client = new RecordingClient(api.baseUrl);
  });
  afterAll(() => api.close());

  const refresh = (token: string) => client.rest('POST', '/v1/auth/refresh', { body: { refresh_token: token } });
  const liveTokens = async (token: string) => {
    const em = api.container.orm.em.fork();
    const { familyId } = await em.findOneOrFail(RefreshToken, { tokenHash: hashToken(token) });
    return em.count(RefreshToken, { familyId, revokedAt: null });
  };
  /** Moves the token's rotation (its revokedAt) back in time, as if it had been spent that long ago. */
  const spentAgo = async (token: string, seconds: number) => {
    const em = api.container.orm.em.fork();
    await em.nativeUpdate(RefreshToken, { tokenHash: hashToken(token) }, { revokedAt: new Date(Date.now() - seconds * 1000) });
  };

  it('answers concurrent refreshes of one token (two tabs, a retried request) with one and the same successor', async () => {
    const session = await signup(client);
    const answers = await Promise.all(Array.from({ length: 8 }, () => refresh(session.refresh_token)));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    const successors = new Set(answers.map((a) => a.body.refresh_token as string));
    expect(successors.size).toBe(1);
    const [successor] = successors;
    expect(successor).not.toBe(session.refresh_token);
    // Each answer has its own working access token.
    for (const a of answers) expect((await client.rest('GET', '/v1/me', { token: a.body.access_token })).status).toBe(200);
    // One live token in the family, and it rotates as usual.
    expect(await liveTokens(session.refresh_token)).toBe(1);
    const next = await refresh(successor);
    expect(next.status).toBe(200);
    expect(next.body.refresh_token).not.toBe(successor);
  });

  it('a client that lost the answer presents the spent token again and gets the same successor', async () => {
    const session = await signup(client);
    const lost = await refresh(session.refresh_token);
    await spentAgo(session.refresh_token, GRACE_SECONDS - 5);
    const again = await refresh(session.refresh_token);
    expect(again.status).toBe(200);
    expect(again.body.refresh_token).toBe(lost.body.refresh_token);
    expect(await liveTokens(session.refresh_token)).toBe(1);
  });

  it('a reuse after the grace still revokes the whole family', async () => {
    const session = await signup(client);
    const rotated = await refresh(session.refresh_token);
    await spentAgo(session.refresh_token, GRACE_SECONDS + 1);
    const reuse = await refresh(session.refresh_token);
    expect(reuse.status).toBe(401);
    expect(reuse.body.error.code).toBe('refresh_token_reused');
    expect(await liveTokens(session.refresh_token)).toBe(0);
    expect((await refresh(rotated.body.refresh_token)).status).toBe(401);
  });

  it('within the grace, a token whose successor was spent already, or a logged-out one, still counts as reuse', async () => {
    const session = await signup(client);
    const second = await refresh(session.refresh_token);
    const third = await refresh(second.body.refresh_token);
    expect(third.status).toBe(200);
    const reuse = await refresh(session.refresh_token);
    expect(reuse.status).toBe(401);
    expect(reuse.body.error.code).toBe('refresh_token_reused');
    expect(await liveTokens(session.refresh_token)).toBe(0);

    const other = await signup(client);
    const rotated = await refresh(other.refresh_token);
    expect((await client.rest('POST', '/v1/auth/logout', { body: { refresh_token: rotated.body.refresh_token } })).status).toBe(204);
    const afterLogout = await refresh(other.refresh_token);
    expect(afterLogout.status).toBe(401);
    expect(afterLogout.body.error.code).toBe('refresh_token_reused');
  });
});
