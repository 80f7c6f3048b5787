import { User } from '../../src/users/user.entity';
import { startTestApi, type TestApi } from '../support/api';
import { signup, uniqueEmail, RecordingClient } from '../support/accounts';

/**
 * Password hashes stored before the service switched argon2 libraries keep working: this one was
 * made by the `argon2` package (0.45, node-gyp) with its defaults, argon2id m=64 MiB t=3 p=4.
 */
const STORED_PASSWORD = 'legacy-password-123';
const STORED_HASH = '$argon2id$v=19$m=65536,p=4,t=3$hFcEvKFfyI02kAV/egHYJA$cGJQB35WvKx8EbFt5fKb/+NCy2xihLd8D2iGvrk2pdw';

describe('password hashes made by the previous argon2 library', () => {
  let api: TestApi;
  let client: RecordingClient;

  beforeAll(async () => {
    api = await startTestApi();
    client = new RecordingClient(api.baseUrl);
  });
  afterAll(() => api.close());

  it('still log in, and a password change re-hashes with the same parameters', async () => {
    const email = uniqueEmail('stored-hash');
    await signup(client, email);
    const em = api.container.orm.em.fork();
    await em.nativeUpdate(User, { email }, { passwordHash: STORED_HASH });

    const wrong = await client.rest('POST', '/v1/auth/login', { body: { email, password: 'not it' } });
    expect(wrong.status).toBe(401);
    const login = await client.rest('POST', '/v1/auth/login', { body: { email, password: STORED_PASSWORD } });
    expect(login.status).toBe(200);

    const changed = await client.rest('PATCH', '/v1/me', { token: login.body.access_token, body: { password: 'a-new-password-456', current_password: STORED_PASSWORD } });
    expect(changed.status).toBe(200);
    const user = await em.fork().findOneOrFail(User, { email });
    expect(user.passwordHash).toMatch(/^\$argon2id\$v=19\$m=65536,t=3,p=4\$/);
    const again = await client.rest('POST', '/v1/auth/login', { body: { email, password: 'a-new-password-456' } });
    expect(again.status).toBe(200);
  });
});
