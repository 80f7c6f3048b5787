import { createHmac } from 'node:crypto';
import { ApiKey } from '../../src/api-keys/api-key.entity';
import { hashToken } from '../../src/common/secret-box';
import { OrganizationMember } from '../../src/organizations/organization-member.entity';
import { gql, rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { createEndpoint, createWorkspace, type Workspace } from '../support/factories';

describe('projects over REST and GraphQL', () => {
  let api: TestApi;
  let owner: Workspace;
  let ownerToken: string;
  let stranger: Workspace;
  let strangerToken: string;

  beforeAll(async () => {
    api = await startTestApi();
    const em = api.container.orm.em.fork();
    owner = await createWorkspace(em);
    stranger = await createWorkspace(em);
    ownerToken = await tokenFor(api.container, owner.user.id);
    strangerToken = await tokenFor(api.container, stranger.user.id);
  });
  afterAll(() => api.close());

  it('lists only the caller’s projects, newest first, with cursor pagination', async () => {
    for (const name of ['Alpha', 'Beta', 'Gamma']) {
      const created = await rest(api.baseUrl, 'POST', `/v1/organizations/${owner.organization.id}/projects`, { token: ownerToken, body: { name } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name, slug: name.toLowerCase(), header_prefix: 'Service', archived_at: null });
    }
    const first = await rest(api.baseUrl, 'GET', '/v1/projects?limit=2', { token: ownerToken });
    expect(first.status).toBe(200);
    expect(first.body.data.map((p: { name: string }) => p.name)).toEqual(['Gamma', 'Beta']);
    const second = await rest(api.baseUrl, 'GET', `/v1/projects?limit=2&cursor=${first.body.next_cursor}`, { token: ownerToken });
    expect(second.body.data.map((p: { name: string }) => p.name)).toEqual(['Alpha', 'Default']);
    expect(second.body.next_cursor).toBeNull();

    const theirs = await rest(api.baseUrl, 'GET', '/v1/projects', { token: strangerToken });
    expect(theirs.body.data.map((p: { id: string }) => p.id)).toEqual([stranger.project.id]);
  });

  it('answers 401 without or with a bad credential, 404 across organizations, 409 on a duplicate slug', async () => {
    expect((await rest(api.baseUrl, 'GET', '/v1/projects')).status).toBe(401);
    const bad = await rest(api.baseUrl, 'GET', '/v1/projects', { token: 'not-a-jwt' });
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('invalid_token');

    const cross = await rest(api.baseUrl, 'GET', `/v1/projects/${owner.project.id}`, { token: strangerToken });
    expect(cross.status).toBe(404);
    expect(cross.body.error.code).toBe('not_found');

    const dup = await rest(api.baseUrl, 'POST', `/v1/organizations/${owner.organization.id}/projects`, { token: ownerToken, body: { name: 'x', slug: 'alpha' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('slug_taken');
  });

  it('validates input with the field named', async () => {
    const res = await rest(api.baseUrl, 'PATCH', `/v1/projects/${owner.project.id}`, { token: ownerToken, body: { header_prefix: 'bad prefix!' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields[0].field).toBe('header_prefix');
    const gqlRes = await gql(api.baseUrl, 'mutation($id: ID!) { updateProject(projectId: $id, input: { headerPrefix: "bad prefix!" }) { id } }', { id: owner.project.id }, { token: ownerToken });
    expect(gqlRes.errors?.[0].extensions).toMatchObject({ code: 'invalid_input', status: 400 });
  });

  it('enforces roles with the needed role named, the same for REST and GraphQL', async () => {
    const em = api.container.orm.em.fork();
    const member = await em.findOneOrFail(OrganizationMember, { user: owner.user.id });
    member.role = 'developer';
    await em.flush();
    try {
      const res = await rest(api.baseUrl, 'PATCH', `/v1/projects/${owner.project.id}`, { token: ownerToken, body: { name: 'Renamed' } });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'insufficient_role', details: { required_role: 'admin', role: 'developer' } });
      const g = await gql(api.baseUrl, 'mutation($id: ID!) { archiveProject(projectId: $id) { id } }', { id: owner.project.id }, { token: ownerToken });
      expect(g.errors?.[0].extensions).toMatchObject({ code: 'insufficient_role', status: 403 });
    } finally {
      member.role = 'owner';
      await em.flush();
    }
  });

  it('archives and restores through GraphQL, visible through REST', async () => {
    const archived = await gql(api.baseUrl, 'mutation($id: ID!) { archiveProject(projectId: $id) { id archivedAt } }', { id: owner.project.id }, { token: ownerToken });
    expect(archived.data.archiveProject.archivedAt).toEqual(expect.any(String));
    const listed = await rest(api.baseUrl, 'GET', '/v1/projects?include_archived=false', { token: ownerToken });
    expect(listed.body.data.map((p: { id: string }) => p.id)).not.toContain(owner.project.id);
    const restored = await rest(api.baseUrl, 'POST', `/v1/projects/${owner.project.id}/restore`, { token: ownerToken });
    expect(restored.body.archived_at).toBeNull();
  });

  it('makes an archived project’s endpoints answer 404 at ingress at once, and a restored one accept again', async () => {
    const { endpoint, signingSecret } = await createEndpoint(api.container, api.container.orm.em.fork(), owner.project);
    const send = () => {
      const body = JSON.stringify({ hello: 'world' });
      const signature = `sha256=${createHmac('sha256', signingSecret).update(body).digest('hex')}`;
      return rest(api.baseUrl, 'POST', `/hooks/${endpoint.slug}`, { body, headers: { 'x-service-signature': signature } });
    };
    expect((await send()).status).toBe(202);
    expect((await rest(api.baseUrl, 'DELETE', `/v1/projects/${owner.project.id}`, { token: ownerToken })).status).toBe(200);
    expect((await send()).status).toBe(404);
    expect((await rest(api.baseUrl, 'POST', `/v1/projects/${owner.project.id}/restore`, { token: ownerToken })).status).toBe(200);
    expect((await send()).status).toBe(202);
  });

  it('lets a project API key see only its own project', async () => {
    const em = api.container.orm.em.fork();
    const key = 'svc_testkey_0123456789abcdef';
    em.create(ApiKey, { project: owner.project.id, name: 'ci', prefix: key.slice(0, 12), keyHash: hashToken(key) });
    await em.flush();
    const mine = await gql(api.baseUrl, '{ projects { data { id headerPrefix } nextCursor } }', {}, { token: key });
    expect(mine.data.projects.data).toEqual([{ id: owner.project.id, headerPrefix: 'Service' }]);
    const other = await rest(api.baseUrl, 'GET', `/v1/projects/${stranger.project.id}`, { token: key });
    expect(other.status).toBe(404);
    const create = await rest(api.baseUrl, 'POST', `/v1/organizations/${owner.organization.id}/projects`, { token: key, body: { name: 'nope' } });
    expect(create.status).toBe(403);
  });

  it('serves an OpenAPI 3.1 document listing every mounted route', async () => {
    const res = await rest(api.baseUrl, 'GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/v1/projects', '/v1/projects/{projectId}']));
    expect(res.body.paths['/v1/projects/{projectId}'].patch['x-required-access']).toEqual({ scope: 'project', permission: 'admin' });
  });
});
