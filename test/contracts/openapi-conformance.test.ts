import { randomUUID } from 'node:crypto';
import { RecordingClient, signup, uniqueEmail } from '../support/accounts';
import { rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { createDestination, createWorkspace } from '../support/factories';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: { content: { 'application/json': { schema: { minProperties?: number } } } } }>> };

/** What the service answers is what `/v1/openapi.json` says it answers (issue 11, item 10). */
describe('the OpenAPI document agrees with the service', () => {
  let api: TestApi;
  let doc: Doc;

  beforeAll(async () => {
    api = await startTestApi({ RELAY_API_RATE_LIMIT: '0' });
    doc = (await rest(api.baseUrl, 'GET', '/v1/openapi.json')).body;
  });
  afterAll(() => api.close());

  it('documents 204 for deletes and logout, which answer 204', async () => {
    const em = api.container.orm.em.fork();
    const ws = await createWorkspace(em);
    const token = await tokenFor(api.container, ws.user.id);
    const destination = await createDestination(api.container, em, ws.project);
    const deleted = await rest(api.baseUrl, 'DELETE', `/v1/destinations/${destination.id}`, { token });
    expect(deleted.status).toBe(204);
    expect(Object.keys(doc.paths['/v1/destinations/{id}'].delete.responses)).toContain('204');
    expect(Object.keys(doc.paths['/v1/destinations/{id}'].delete.responses)).not.toContain('200');

    const session = await signup(new RecordingClient(api.baseUrl), uniqueEmail());
    const logout = await rest(api.baseUrl, 'POST', '/v1/auth/logout', { body: { refresh_token: session.refresh_token } });
    expect(logout.status).toBe(204);
    expect(Object.keys(doc.paths['/v1/auth/logout'].post.responses)).toContain('204');
  });

  it('documents the 401 that login and refresh answer', async () => {
    const login = await rest(api.baseUrl, 'POST', '/v1/auth/login', { body: { email: uniqueEmail(), password: 'wrong password here' } });
    expect(login.status).toBe(401);
    expect(doc.paths['/v1/auth/login'].post.responses).toHaveProperty('401');
    const refresh = await rest(api.baseUrl, 'POST', '/v1/auth/refresh', { body: { refresh_token: 'not-a-refresh-token-at-all' } });
    expect(refresh.status).toBe(401);
    expect(doc.paths['/v1/auth/refresh'].post.responses).toHaveProperty('401');
  });

  it('refuses an empty PATCH with 400 and documents minProperties: 1 on every PATCH body', async () => {
    const ws = await createWorkspace(api.container.orm.em.fork());
    const token = await tokenFor(api.container, ws.user.id);
    const res = await rest(api.baseUrl, 'PATCH', '/v1/me', { token, body: {} });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'empty_update' });
    const patches = Object.values(doc.paths).flatMap((ops) => (ops.patch ? [ops.patch] : []));
    expect(patches.length).toBeGreaterThan(5);
    for (const op of patches) expect(op.requestBody?.content['application/json'].schema.minProperties).toBe(1);
  });

  it('answers 400 empty_update to every PATCH sent no body at all, as to `{}`', async () => {
    const ws = await createWorkspace(api.container.orm.em.fork());
    const token = await tokenFor(api.container, ws.user.id);
    const ids: Record<string, string> = { projectId: ws.project.id, organizationId: ws.organization.id };
    const paths = Object.entries(doc.paths).filter(([, ops]) => ops.patch).map(([path]) => path);
    expect(paths.length).toBeGreaterThanOrEqual(12);
    for (const path of paths) {
      const url = path.replace(/\{(\w+)\}/g, (_m, name: string) => ids[name] ?? randomUUID());
      for (const body of [undefined, {}]) {
        const res = await rest(api.baseUrl, 'PATCH', url, { token, body, headers: { 'x-project-id': ws.project.id } });
        expect({ path, body, status: res.status, code: res.body?.error?.code }).toEqual({ path, body, status: 400, code: 'empty_update' });
      }
    }
  });

  it('refuses a JSON null body (the document says an object), not reading it as no change', async () => {
    const ws = await createWorkspace(api.container.orm.em.fork());
    const token = await tokenFor(api.container, ws.user.id);
    for (const [method, path] of [['PATCH', `/v1/projects/${ws.project.id}`], ['PATCH', '/v1/me'], ['POST', '/v1/endpoints']] as const) {
      const res = await rest(api.baseUrl, method, path, { token, body: 'null' });
      expect({ method, path, status: res.status, code: res.body?.error?.code, in: res.body?.error?.details?.in }).toEqual({ method, path, status: 400, code: 'invalid_input', in: 'body' });
    }
  });
});
