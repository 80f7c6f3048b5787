import { createWorkspace } from '../support/factories';
import { postSigned } from '../support/ingress-helpers';
import { type ResourceEnv, startResourceEnv } from '../resources/resource-harness';

/**
 * The project's system source (docs/alerts.md): made with every
 * project, listed with `system: true`, never reachable over HTTP, never deleted, and only the settings
 * that make sense for it can change.
 */
describe('the system source over REST and GraphQL', () => {
  let env: ResourceEnv;
  let system: { id: string; slug: string };

  beforeAll(async () => {
    env = await startResourceEnv();
  });
  afterAll(() => env.close());

  it('exists in every project, listed with system: true and no ingress URL or secret', async () => {
    const list = await env.call('GET', '/v1/endpoints');
    expect(list.status).toBe(200);
    const systems = list.body.data.filter((e: { system: boolean }) => e.system);
    expect(systems).toHaveLength(1);
    expect(systems[0]).toMatchObject({
      name: 'Operational events',
      slug: `relay-system-${env.owner.project.id.replaceAll('-', '')}`,
      system: true,
      ingress_url: null,
      has_signing_secret: false,
      is_active: true,
      project_id: env.owner.project.id,
    });
    system = systems[0];
    const created = await env.call('POST', '/v1/endpoints', { body: { name: 'Ordinary' } });
    expect(created.body).toMatchObject({ system: false, ingress_url: expect.stringContaining('/hooks/') });

    const gql = await env.query('query { endpoints(limit: 200) { data { id system ingressUrl } } }');
    expect(gql.data.endpoints.data).toContainEqual({ id: system.id, system: true, ingressUrl: null });

    // A project made later has its own (a trigger makes it with the project).
    const other = await createWorkspace(env.em());
    const rows = await env.em().getConnection().execute('select count(*)::int as n from webhook_endpoints where project_id = ? and is_system', [other.project.id]);
    expect(rows[0].n).toBe(1);
  });

  it('receives no HTTP requests: ingress answers as for an unknown slug', async () => {
    const res = await postSigned(env.api.baseUrl, system.slug, 'any-secret', { type: 'relay.delivery.dead_lettered' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: { code: 'not_found', message: `Endpoint ${system.slug} was not found.`, details: { resource: 'Endpoint', id: system.slug } },
    });
  });

  it('refuses what makes no sense for it, clearly; its name and is_active change', async () => {
    const del = await env.call('DELETE', `/v1/endpoints/${system.id}`);
    expect(del.status).toBe(409);
    expect(del.body.error).toMatchObject({ code: 'system_endpoint', message: expect.stringContaining('cannot be deleted') });

    for (const body of [{ slug: 'mine-now' }, { event_type_path: 'type' }, { provider: 'codehost_a' }, { typing_rules: [] }]) {
      const res = await env.call('PATCH', `/v1/endpoints/${system.id}`, { body });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'system_endpoint', details: { fields: [{ field: Object.keys(body)[0] }] } });
    }
    const rotate = await env.call('POST', `/v1/endpoints/${system.id}/signing-secret`, { body: {} });
    expect(rotate.status).toBe(409);
    expect(rotate.body.error.code).toBe('system_endpoint');
    const test = await env.call('POST', `/v1/endpoints/${system.id}/test`);
    expect(test.status).toBe(409);
    expect(test.body.error.code).toBe('system_endpoint');

    const renamed = await env.call('PATCH', `/v1/endpoints/${system.id}`, { body: { name: 'Alerts', is_active: false } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Alerts', is_active: false, system: true });

    const gql = await env.query(`mutation { deleteEndpoint(id: "${system.id}") }`);
    expect(gql.errors![0].extensions).toMatchObject({ code: 'system_endpoint', status: 409 });
  });
});
