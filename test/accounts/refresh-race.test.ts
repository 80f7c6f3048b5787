import { RefreshToken } from '../../src/auth/refresh-token.entity';
import { hashToken } from '../../src/common/secret-box';
import { startTestApi, type TestApi } from '../support/api';
import { RecordingClient, signup } from '../support/accounts';

const CONCURRENT = 20;
const TRIALS = 5;

describe('refresh-token reuse under concurrency', () => {
  let api: TestApi;
  let client: RecordingClient;

  beforeAll(async () => {
    // Nineteen reuses per trial are failed refreshes from one address: the per-IP limit is not what this measures.
    // Without the reuse grace, so that every concurrent reuse counts (with it: refresh-grace.test.ts).
    api = await startTestApi({ RELAY_AUTH_IP_LIMIT: '0', RELAY_REFRESH_REUSE_GRACE_SECONDS: '0' });
    client = new RecordingClient(api.baseUrl);
  });
  afterAll(() => api.close());

  it(`revokes the whole family: after ${CONCURRENT} concurrent refreshes of one token, no token of the family works (${TRIALS} trials)`, async () => {
    for (let trial = 0; trial < TRIALS; trial++) {
      const session = await signup(client);
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT }, () => client.rest('POST', '/v1/auth/refresh', { body: { refresh_token: session.refresh_token } })),
      );
      const won = answers.filter((a) => a.status === 200);
      // One refresh spends the token; every other one is reuse.
      expect(won).toHaveLength(1);
      expect(answers.filter((a) => a.status === 401).map((a) => a.body.error.code)).toEqual(Array(CONCURRENT - 1).fill('refresh_token_reused'));

      const winner = won[0].body.refresh_token as string;
      const again = await client.rest('POST', '/v1/auth/refresh', { body: { refresh_token: winner } });
      expect(again.status).toBe(401);
      const em = api.container.orm.em.fork();
      const { familyId } = await em.findOneOrFail(RefreshToken, { tokenHash: hashToken(session.refresh_token) });
      expect(await em.count(RefreshToken, { familyId, revokedAt: null })).toBe(0);
    }
  });
});
