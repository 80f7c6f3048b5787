import { ApiKey } from '../../src/api-keys/api-key.entity';
import { OrganizationMember } from '../../src/organizations/organization-member.entity';
import { startTestApi, type TestApi } from '../support/api';
import { RecordingClient, type Session, signup } from '../support/accounts';

describe('API keys over REST and GraphQL', () => {
  let api: TestApi;
  let client: RecordingClient;
  let owner: Session;
  let projectId: string;
  let stranger: Session;
  const fullKeys: string[] = [];

  beforeAll(async () => {
    api = await startTestApi();
    client = new RecordingClient(api.baseUrl);
    owner = await signup(client);
    stranger = await signup(client);
    projectId = (await client.rest('GET', '/v1/projects', { token: owner.access_token })).body.data[0].id;
  });
  afterAll(async () => {
    const hashes = (await api.container.orm.em.fork().find(ApiKey, {})).map((k) => k.keyHash);
    client.expectNoSecrets(hashes);
    // Each full key appears in exactly one answer: the one that created it.
    for (const key of fullKeys) expect(client.bodies.filter((b) => b.includes(key))).toHaveLength(1);
    await api.close();
  });

  it('creates a key shown once, listed by prefix, usable as a developer of its project', async () => {
    const created = await client.rest('POST', '/v1/api-keys', { token: owner.access_token, body: { name: 'ci', project_id: projectId } });
    expect(created.status).toBe(201);
    const key: string = created.body.key;
    fullKeys.push(key);
    expect(key).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
    expect(created.body).toMatchObject({ name: 'ci', project_id: projectId, prefix: key.slice(0, 12), revoked_at: null, created_by: owner.user.id });

    const listed = await client.rest('GET', '/v1/api-keys', { token: key });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: created.body.id, prefix: key.slice(0, 12) })]);
    expect(listed.body.data[0]).not.toHaveProperty('key');

    const viaGql = await client.gql('{ apiKeys { data { id prefix name revokedAt } } }', {}, { token: key });
    expect(viaGql.data.apiKeys.data).toEqual([{ id: created.body.id, prefix: key.slice(0, 12), name: 'ci', revokedAt: null }]);

    // A key is a developer of its own project only: no organizations, no other project, no members.
    const orgs = await client.rest('GET', '/v1/organizations', { token: key });
    expect(orgs.status).toBe(403);
    const [org] = (await client.rest('GET', '/v1/organizations', { token: owner.access_token })).body.data;
    expect((await client.rest('GET', `/v1/organizations/${org.id}/members`, { token: key })).status).toBe(403);
    const strangerProject = (await client.rest('GET', '/v1/projects', { token: stranger.access_token })).body.data[0].id;
    expect((await client.rest('GET', '/v1/api-keys', { token: key, projectId: strangerProject })).status).toBe(404);
  });

  it('lists with pagination, gets, renames and revokes; a revoked key is refused', async () => {
    const names = ['k1', 'k2', 'k3'];
    const made = [];
    for (const name of names) {
      const g = await client.gql('mutation($n: String!, $p: ID) { createApiKey(name: $n, projectId: $p) { id key prefix } }', { n: name, p: projectId }, { token: owner.access_token });
      fullKeys.push(g.data.createApiKey.key);
      made.push(g.data.createApiKey);
    }
    const page1 = await client.rest('GET', '/v1/api-keys?limit=2', { token: owner.access_token, projectId });
    expect(page1.body.data.map((k: { name: string }) => k.name)).toEqual(['k3', 'k2']);
    const page2 = await client.rest('GET', `/v1/api-keys?limit=2&cursor=${page1.body.next_cursor}`, { token: owner.access_token, projectId });
    expect(page2.body.data.map((k: { name: string }) => k.name)).toEqual(['k1', 'ci']);
    expect(page2.body.next_cursor).toBeNull();

    const id = made[0].id;
    expect((await client.rest('GET', `/v1/api-keys/${id}`, { token: owner.access_token, projectId })).body.name).toBe('k1');
    const renamed = await client.rest('PATCH', `/v1/api-keys/${id}`, { token: owner.access_token, projectId, body: { name: 'deploy' } });
    expect(renamed.body.name).toBe('deploy');
    const g = await client.gql('query($id: ID!) { apiKey(id: $id) { name } }', { id }, { token: owner.access_token, projectId });
    expect(g.data.apiKey.name).toBe('deploy');

    const revoked = await client.rest('DELETE', `/v1/api-keys/${id}`, { token: owner.access_token, projectId });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    const refused = await client.rest('GET', '/v1/api-keys', { token: made[0].key });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('invalid_api_key');
    const viaGql = await client.gql('mutation($id: ID!) { revokeApiKey(id: $id) { revokedAt } }', { id: made[1].id }, { token: owner.access_token, projectId });
    expect(viaGql.data.revokeApiKey.revokedAt).toEqual(expect.any(String));
    const active = await client.rest('GET', '/v1/api-keys?include_revoked=false', { token: owner.access_token, projectId });
    expect(active.body.data.map((k: { name: string }) => k.name)).toEqual(['k3', 'ci']);
    // Still listed, never deleted.
    expect((await api.container.orm.em.fork().count(ApiKey, { project: projectId }))).toBe(4);
  });

  it('answers 400, 401, 403 (naming developer) and 404 across organizations', async () => {
    const bad = await client.rest('POST', '/v1/api-keys', { token: owner.access_token, projectId, body: { name: '' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields[0].field).toBe('name');
    expect((await client.rest('POST', '/v1/api-keys', { body: { name: 'x' } })).status).toBe(401);
    expect((await client.rest('GET', '/v1/api-keys', { token: 'svc_not_a_real_key' })).status).toBe(401);

    const anyKey = (await client.rest('GET', '/v1/api-keys', { token: owner.access_token, projectId })).body.data[0].id;
    expect((await client.rest('GET', `/v1/api-keys/${anyKey}`, { token: stranger.access_token })).status).toBe(404);
    expect((await client.rest('GET', `/v1/api-keys/${anyKey}`, { token: stranger.access_token, projectId })).status).toBe(404);
    const g404 = await client.gql('mutation($id: ID!) { revokeApiKey(id: $id) { id } }', { id: anyKey }, { token: stranger.access_token });
    expect(g404.errors?.[0].extensions).toMatchObject({ code: 'not_found', status: 404 });

    const em = api.container.orm.em.fork();
    const member = await em.findOneOrFail(OrganizationMember, { user: owner.user.id });
    member.role = 'viewer';
    await em.flush();
    try {
      expect((await client.rest('GET', '/v1/api-keys', { token: owner.access_token, projectId })).status).toBe(200);
      const denied = await client.rest('POST', '/v1/api-keys', { token: owner.access_token, projectId, body: { name: 'nope' } });
      expect(denied.status).toBe(403);
      expect(denied.body.error.details).toEqual({ required_role: 'developer', role: 'viewer' });
      const gDenied = await client.gql('mutation { createApiKey(name: "nope") { id } }', {}, { token: owner.access_token, projectId });
      expect(gDenied.errors?.[0].extensions).toMatchObject({ code: 'insufficient_role', status: 403 });
    } finally {
      member.role = 'owner';
      await em.flush();
    }
  });
});
