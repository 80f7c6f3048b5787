import { RefreshToken } from '../../src/auth/refresh-token.entity';
import { hashToken } from '../../src/common/secret-box';
import { User } from '../../src/users/user.entity';
import { startTestApi, type TestApi } from '../support/api';
import { PASSWORD, RecordingClient, signup, uniqueEmail } from '../support/accounts';

describe('accounts: signup, login, refresh, logout, me (REST and GraphQL)', () => {
  let api: TestApi;
  let client: RecordingClient;
  const secrets: string[] = [PASSWORD];

  beforeAll(async () => {
    api = await startTestApi();
    client = new RecordingClient(api.baseUrl);
  });
  afterAll(async () => {
    const em = api.container.orm.em.fork();
    for (const user of await em.find(User, {})) secrets.push(user.passwordHash ?? '');
    for (const token of await em.find(RefreshToken, {})) secrets.push(token.tokenHash);
    client.expectNoSecrets(secrets);
    await api.close();
  });

  it('signs up with an argon2id hash, a session, and a Default organization and project', async () => {
    const email = uniqueEmail('Mixed.Case');
    const res = await client.rest('POST', '/v1/auth/signup', { body: { email: ` ${email.toUpperCase()} `, password: PASSWORD, name: 'Ada' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 900, user: { email: email.toLowerCase(), name: 'Ada', has_password: true } });
    expect(res.body.refresh_token).toMatch(/^rt_/);
    expect(res.body.user).not.toHaveProperty('password_hash');

    const em = api.container.orm.em.fork();
    const user = await em.findOneOrFail(User, { email: email.toLowerCase() });
    expect(user.passwordHash).toMatch(/^\$argon2id\$/);

    const orgs = await client.rest('GET', '/v1/organizations', { token: res.body.access_token });
    expect(orgs.body.data).toEqual([expect.objectContaining({ name: 'Default', plan: 'free', role: 'owner' })]);
    const projects = await client.rest('GET', '/v1/projects', { token: res.body.access_token });
    expect(projects.body.data).toEqual([expect.objectContaining({ name: 'Default', organization_id: orgs.body.data[0].id, user_id: user.id })]);

    const me = await client.rest('GET', '/v1/me', { token: res.body.access_token });
    expect(me.body).toMatchObject({ id: user.id, email: email.toLowerCase() });
  });

  it('refuses a taken email (409), a short password and a bad email (400 with the field)', async () => {
    const email = uniqueEmail();
    await signup(client, email);
    const dup = await client.rest('POST', '/v1/auth/signup', { body: { email: email.toUpperCase(), password: PASSWORD } });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'email_taken', details: { field: 'email' } });

    const bad = await client.rest('POST', '/v1/auth/signup', { body: { email: 'nope', password: 'short' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(['email', 'password']);

    const g = await client.gql('mutation { signup(input: { email: "x@example.test", password: "short" }) { accessToken } }');
    expect(g.errors?.[0].extensions).toMatchObject({ code: 'invalid_input', status: 400, details: { fields: [{ field: 'password' }] } });
  });

  it('logs in without revealing whether the email exists', async () => {
    const email = uniqueEmail();
    await signup(client, email);
    const ok = await client.rest('POST', '/v1/auth/login', { body: { email, password: PASSWORD } });
    expect(ok.status).toBe(200);
    const wrong = await client.rest('POST', '/v1/auth/login', { body: { email, password: 'wrong password' } });
    const unknown = await client.rest('POST', '/v1/auth/login', { body: { email: uniqueEmail('ghost'), password: 'wrong password' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);

    const g = await client.gql('mutation($e: String!, $p: String!) { login(email: $e, password: $p) { tokenType user { email } } }', { e: email, p: PASSWORD });
    expect(g.data.login).toEqual({ tokenType: 'Bearer', user: { email } });
  });

  it('rotates refresh tokens and revokes the family when a spent one is reused', async () => {
    const first = await signup(client);
    const second = await client.rest('POST', '/v1/auth/refresh', { body: { refresh_token: first.refresh_token } });
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    const third = await client.gql('mutation($t: String!) { refreshToken(refreshToken: $t) { refreshToken accessToken } }', { t: second.body.refresh_token });
    const latest = third.data.refreshToken.refreshToken as string;
    expect(latest).toMatch(/^rt_/);

    const reuse = await client.rest('POST', '/v1/auth/refresh', { body: { refresh_token: first.refresh_token } });
    expect(reuse.status).toBe(401);
    expect(reuse.body.error.code).toBe('refresh_token_reused');
    // The thief's reuse also ends the legitimate holder's newest token.
    const after = await client.rest('POST', '/v1/auth/refresh', { body: { refresh_token: latest } });
    expect(after.status).toBe(401);

    const em = api.container.orm.em.fork();
    const row = await em.findOneOrFail(RefreshToken, { tokenHash: hashToken(latest) });
    expect(row.revokedAt).toBeInstanceOf(Date);
  });

  it('logout revokes the session; expired and unknown refresh tokens are 401', async () => {
    const session = await signup(client);
    expect((await client.rest('POST', '/v1/auth/logout', { body: { refresh_token: session.refresh_token } })).status).toBe(204);
    const again = await client.rest('POST', '/v1/auth/refresh', { body: { refresh_token: session.refresh_token } });
    expect(again.status).toBe(401);
    const g = await client.gql('mutation { logout(refreshToken: "rt_unknown") }');
    expect(g.data.logout).toBe(true);

    const other = await signup(client);
    const em = api.container.orm.em.fork();
    await em.nativeUpdate(RefreshToken, { tokenHash: hashToken(other.refresh_token) }, { expiresAt: new Date(Date.now() - 1000) });
    const expired = await client.rest('POST', '/v1/auth/refresh', { body: { refresh_token: other.refresh_token } });
    expect(expired.body.error.code).toBe('refresh_token_expired');
    expect((await client.rest('POST', '/v1/auth/refresh', { body: { refresh_token: 'rt_nope' } })).body.error.code).toBe('invalid_refresh_token');
  });

  it('me: 401 without a token, 401 with a forged one, works over GraphQL, and updates the name', async () => {
    expect((await client.rest('GET', '/v1/me')).status).toBe(401);
    const forged = await client.rest('GET', '/v1/me', { token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl' });
    expect(forged.body.error.code).toBe('invalid_token');
    const session = await signup(client);
    const g = await client.gql('{ me { id email hasPassword } }', {}, { token: session.access_token });
    expect(g.data.me).toEqual({ id: session.user.id, email: session.user.email, hasPassword: true });
    const renamed = await client.gql('mutation { updateMe(input: { name: "Grace" }) { name } }', {}, { token: session.access_token });
    expect(renamed.data.updateMe.name).toBe('Grace');
    const gNoAuth = await client.gql('{ me { id } }');
    expect(gNoAuth.errors?.[0].extensions).toMatchObject({ code: 'unauthenticated', status: 401 });
  });

  it('changes the password only with the current one, ending every other session', async () => {
    const email = uniqueEmail();
    const session = await signup(client, email);
    const missing = await client.rest('PATCH', '/v1/me', { token: session.access_token, body: { password: 'a brand new password' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'invalid_current_password', details: { field: 'current_password' } });
    const changed = await client.rest('PATCH', '/v1/me', { token: session.access_token, body: { password: 'a brand new password', current_password: PASSWORD } });
    expect(changed.status).toBe(200);
    expect((await client.rest('POST', '/v1/auth/refresh', { body: { refresh_token: session.refresh_token } })).status).toBe(401);
    expect((await client.rest('POST', '/v1/auth/login', { body: { email, password: PASSWORD } })).status).toBe(401);
    expect((await client.rest('POST', '/v1/auth/login', { body: { email, password: 'a brand new password' } })).status).toBe(200);
  });
});
