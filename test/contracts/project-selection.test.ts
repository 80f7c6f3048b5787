import { gql, rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { createWorkspace, type Workspace } from '../support/factories';

/**
 * A project selection (`X-Project-Id`, `project_id` in the query or body) that is empty or not a project's id is a
 * 400 naming it, in REST and GraphQL alike, never read as "no selection" (which acts on the default project).
 */
describe('selecting a project', () => {
  let api: TestApi;
  let ws: Workspace;
  let token: string;

  beforeAll(async () => {
    api = await startTestApi({ RELAY_API_RATE_LIMIT: '0' });
    ws = await createWorkspace(api.container.orm.em.fork());
    token = await tokenFor(api.container, ws.user.id);
  });
  afterAll(() => api.close());

  const refusal = (field: string, why: RegExp) => ({ status: 400, code: 'invalid_input', field, message: expect.stringMatching(why) });
  const answer = (res: { status: number; body: any }) => ({ status: res.status, code: res.body?.error?.code, field: res.body?.error?.details?.field, message: res.body?.error?.message });

  it('refuses an empty X-Project-Id header, naming it, on every kind of project-scoped operation', async () => {
    const empty = { 'x-project-id': '' };
    for (const [method, path, body] of [
      ['GET', '/v1/endpoints', undefined],
      ['POST', '/v1/templates', { name: 't', config: {} }],
      ['GET', `/v1/projects/${ws.project.id}`, undefined],
      ['DELETE', `/v1/projects/${ws.project.id}`, undefined],
    ] as const) {
      const res = await rest(api.baseUrl, method, path, { token, headers: empty, body });
      expect({ method, path, ...answer(res) }).toEqual({ method, path, ...refusal('X-Project-Id', /^X-Project-Id is empty: leave it out to use your default project\.$/) });
    }
    // Nothing was created or archived meanwhile; without the header, the default project is used.
    const templates = await rest(api.baseUrl, 'GET', '/v1/templates', { token });
    expect({ status: templates.status, data: templates.body.data }).toEqual({ status: 200, data: [] });
    expect((await rest(api.baseUrl, 'GET', `/v1/projects/${ws.project.id}`, { token })).body.archived_at).toBeNull();
  });

  it('refuses a malformed X-Project-Id even when the body names the project', async () => {
    const res = await rest(api.baseUrl, 'POST', '/v1/api-keys', { token, headers: { 'x-project-id': '999999999999999999999999999999' }, body: { name: 'k', project_id: ws.project.id } });
    expect(answer(res)).toEqual(refusal('X-Project-Id', /^X-Project-Id is not a project's id \(a UUID\)\.$/));
  });

  it('refuses an empty project_id in the query or the body', async () => {
    expect(answer(await rest(api.baseUrl, 'GET', '/v1/endpoints?project_id=', { token }))).toEqual(refusal('project_id', /^project_id is empty/));
    expect(answer(await rest(api.baseUrl, 'POST', '/v1/api-keys', { token, body: { name: 'k', project_id: '' } }))).toEqual(refusal('project_id', /^project_id is empty/));
  });

  it('refuses an empty X-Project-Id in GraphQL as in REST', async () => {
    const res = await gql(api.baseUrl, '{ endpoints { data { id } } }', {}, { token, headers: { 'x-project-id': '' } });
    expect(res.errors?.[0]).toMatchObject({ message: 'X-Project-Id is empty: leave it out to use your default project.', extensions: { code: 'invalid_input', status: 400, details: { field: 'X-Project-Id' } } });
    const fine = await gql(api.baseUrl, '{ endpoints { data { id } } }', {}, { token });
    expect(fine.errors).toBeUndefined();
  });
});
