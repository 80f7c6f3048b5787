import { insertEvent } from '../support/factories';
import { createApiKey, postSigned } from '../support/ingress-helpers';
import { WebhookEndpoint } from '../../src/endpoints/endpoint.entity';
import { collectPages, expectNoSecrets, type ResourceEnv, SECRETS, startResourceEnv } from './resource-harness';

const ENDPOINT_FIELDS = 'id name slug ingressUrl signingSecret hasSigningSecret isActive provider eventTypePath eventTypeHeader typingRules previousSecretExpiresAt';

describe('endpoints (sources) over REST and GraphQL', () => {
  let env: ResourceEnv;
  const generatedSecrets: string[] = [];

  beforeAll(async () => {
    env = await startResourceEnv();
  });
  afterAll(() => env.close());

  it('creates with a generated slug and a signing secret shown once, then hides it', async () => {
    const created = await env.call('POST', '/v1/endpoints', { body: { name: 'Code Host Pushes', provider: 'codehost_a', event_type_header: 'X-My-Type' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Code Host Pushes',
      slug: expect.stringMatching(/^code-host-pushes-[0-9a-f]{8}$/),
      signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43,}$/),
      has_signing_secret: true,
      is_active: true,
      provider: 'codehost_a',
      event_type_header: 'X-My-Type',
      typing_rules: [],
      project_id: env.owner.project.id,
    });
    expect(created.body.ingress_url).toBe(`${env.api.container.config.publicBaseUrl}/hooks/${created.body.slug}`);
    generatedSecrets.push(created.body.signing_secret);

    const got = await env.call('GET', `/v1/endpoints/${created.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: created.body.id, signing_secret: null, has_signing_secret: true });

    // The secret works at ingress: it is the one that was shown.
    expect((await postSigned(env.api.baseUrl, created.body.slug, created.body.signing_secret, { a: 1 })).status).toBe(202);
  });

  it('lists newest first with cursor pagination', async () => {
    for (const name of ['P1', 'P2', 'P3']) expect((await env.call('POST', '/v1/endpoints', { body: { name } })).status).toBe(201);
    const first = await env.call('GET', '/v1/endpoints?limit=2');
    expect(first.body.data.map((e: { name: string }) => e.name)).toEqual(['P3', 'P2']);
    expect(first.body.data.every((e: { signing_secret: unknown }) => e.signing_secret === null)).toBe(true);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    // Four made here and the project's system source (docs/operational-events.md).
    const { ids, pages } = await collectPages(env, '/v1/endpoints', 2);
    expect(ids).toHaveLength(5);
    expect(pages).toBe(3);
    const bad = await env.call('GET', '/v1/endpoints?cursor=not-a-cursor');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_cursor');
  });

  it('accepts a custom slug, a provided secret and valid typing rules; refuses a taken slug with 409', async () => {
    const typingRules = [
      { name: 'issues', logic: 'AND', conditions: [{ field: 'header.X-Kind', operator: 'regex', value: '^iss' }], parts: [{ literal: 'issue' }, { path: 'body.action' }] },
    ];
    const res = await env.call('POST', '/v1/endpoints', {
      body: { name: 'Payments', slug: 'payments-in', signing_secret: SECRETS.endpointSigning, provider: 'payments_a', typing_rules: typingRules, event_type_path: 'data.object.type' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ slug: 'payments-in', signing_secret: null, has_signing_secret: true, event_type_path: 'data.object.type' });
    expect(res.body.typing_rules).toEqual([{ ...typingRules[0], conditions: [{ field: 'header.X-Kind', operator: 'regex', value: '^iss' }] }]);

    const dup = await env.call('POST', '/v1/endpoints', { body: { name: 'Other', slug: 'payments-in' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'slug_taken', details: { field: 'slug' } });
    // Slugs are global: another organization cannot take it either.
    const theirs = await env.call('POST', '/v1/endpoints', { token: env.tokens.stranger, projectId: env.stranger.project.id, body: { name: 'x', slug: 'payments-in' } });
    expect(theirs.status).toBe(409);
    const other = await env.call('POST', '/v1/endpoints', { body: { name: 'Other' } });
    generatedSecrets.push(other.body.signing_secret);
    const clash = await env.call('PATCH', `/v1/endpoints/${other.body.id}`, { body: { slug: 'payments-in' } });
    expect(clash.status).toBe(409);
    expect((await env.call('PATCH', `/v1/endpoints/${other.body.id}`, { body: { slug: 'other-in' } })).body.slug).toBe('other-in');
  });

  it('answers 400 naming the field: bad slug, invalid regex in a typing rule, too many rules, unknown provider, unknown key on update', async () => {
    const cases: Array<[unknown, string]> = [
      [{ name: 'x', slug: 'Bad Slug!' }, 'slug'],
      [{ name: 'x', typing_rules: [{ name: 'r', conditions: [{ field: 'body.a', operator: 'regex', value: '(' }], parts: [{ literal: 'x' }] }] }, 'typing_rules.0.conditions.0.value'],
      [{ name: 'x', typing_rules: [{ name: 'r', conditions: [{ field: 'nope', operator: 'eq', value: 'a' }], parts: [{ literal: 'x' }] }] }, 'typing_rules.0.conditions.0.field'],
      [{ name: 'x', typing_rules: [{ name: 'r', parts: [{ path: 'query.x' }] }] }, 'typing_rules.0.parts.0.path'],
      [{ name: 'x', typing_rules: Array.from({ length: 11 }, (_, i) => ({ name: `r${i}`, parts: [{ literal: 'x' }] })) }, 'typing_rules'],
      [{ name: 'x', provider: 'payments_b' }, 'provider'],
      [{ name: '' }, 'name'],
      [{ name: 'x', oauth_connection_id: '0190c5a0-0000-7000-8000-000000000000' }, 'oauth_connection_id'],
    ];
    for (const [body, field] of cases) {
      const res = await env.call('POST', '/v1/endpoints', { body });
      expect({ field, status: res.status }).toEqual({ field, status: 400 });
      expect(res.body.error.details.fields?.map((f: { field: string }) => f.field) ?? [res.body.error.details.field]).toContain(field);
    }
    const created = await env.call('POST', '/v1/endpoints', { body: { name: 'keep' } });
    generatedSecrets.push(created.body.signing_secret);
    const withSecret = await env.call('PATCH', `/v1/endpoints/${created.body.id}`, { body: { signing_secret: SECRETS.endpointRotated } });
    expect(withSecret.status).toBe(400);
    expect(withSecret.body.error.details.fields[0]).toEqual({ field: 'signing_secret', message: expect.stringContaining('/signing-secret') });
    // A project_id in the body selects the project (kernel hint) and is not an error.
    expect((await env.call('PATCH', `/v1/endpoints/${created.body.id}`, { projectId: '', body: { project_id: env.owner.project.id, name: 'kept' } })).body.name).toBe('kept');
  });

  it('answers 401 without a credential, 403 to a viewer writing, and lets the viewer read', async () => {
    expect((await env.call('GET', '/v1/endpoints', { token: '' })).status).toBe(401);
    const forbidden = await env.call('POST', '/v1/endpoints', { token: env.tokens.viewer, body: { name: 'nope' } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toMatchObject({ code: 'insufficient_role', details: { required_role: 'developer', role: 'viewer' } });
    const list = await env.call('GET', '/v1/endpoints', { token: env.tokens.viewer });
    expect(list.status).toBe(200);
    expect(list.body.data.length).toBeGreaterThan(0);
  });

  it('never shows another organization its endpoints', async () => {
    const mine = await env.call('POST', '/v1/endpoints', { body: { name: 'Private' } });
    generatedSecrets.push(mine.body.signing_secret);
    const asStranger = { token: env.tokens.stranger, projectId: env.stranger.project.id };
    for (const [method, path] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', '/signing-secret']] as const) {
      const body = { GET: undefined, DELETE: undefined, PATCH: { name: 'hijack' }, POST: { overlap_seconds: 0 } }[method];
      const res = await env.call(method, `/v1/endpoints/${mine.body.id}${path}`, { ...asStranger, body });
      expect({ method, path, status: res.status, code: res.body?.error?.code }).toEqual({ method, path, status: 404, code: 'not_found' });
    }
    const theirList = await env.call('GET', '/v1/endpoints', asStranger);
    expect(theirList.body.data.map((e: { id: string }) => e.id)).not.toContain(mine.body.id);
    // Naming the owner's project does not help either.
    expect((await env.call('GET', '/v1/endpoints', { token: env.tokens.stranger, projectId: env.owner.project.id })).status).toBe(404);
    const gq = await env.query('query($id: ID!) { endpoint(id: $id) { id } }', { id: mine.body.id }, asStranger);
    expect(gq.errors?.[0].extensions).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('is_active=false makes ingress answer 404 at once; reactivating accepts again', async () => {
    const ep = await env.call('POST', '/v1/endpoints', { body: { name: 'Toggle', signing_secret: SECRETS.endpointSigning } });
    expect((await postSigned(env.api.baseUrl, ep.body.slug, SECRETS.endpointSigning, { n: 1 })).status).toBe(202);
    expect((await env.call('PATCH', `/v1/endpoints/${ep.body.id}`, { body: { is_active: false } })).body.is_active).toBe(false);
    expect((await postSigned(env.api.baseUrl, ep.body.slug, SECRETS.endpointSigning, { n: 2 })).status).toBe(404);
    await env.call('PATCH', `/v1/endpoints/${ep.body.id}`, { body: { is_active: true } });
    expect((await postSigned(env.api.baseUrl, ep.body.slug, SECRETS.endpointSigning, { n: 3 })).status).toBe(202);
    // A new slug takes over at once and the old one stops answering.
    const newSlug = `${ep.body.slug}-renamed`;
    expect((await postSigned(env.api.baseUrl, newSlug, SECRETS.endpointSigning, { n: 4 })).status).toBe(404);
    expect((await env.call('PATCH', `/v1/endpoints/${ep.body.id}`, { body: { slug: newSlug } })).body.ingress_url).toMatch(new RegExp(`/hooks/${newSlug}$`));
    expect((await postSigned(env.api.baseUrl, newSlug, SECRETS.endpointSigning, { n: 5 })).status).toBe(202);
    expect((await postSigned(env.api.baseUrl, ep.body.slug, SECRETS.endpointSigning, { n: 6 })).status).toBe(404);
  });

  it('rotates the signing secret: generated and shown once, or given and not echoed; ingress follows', async () => {
    const ep = await env.call('POST', '/v1/endpoints', { body: { name: 'Rotate', signing_secret: SECRETS.endpointSigning } });
    const generated = await env.call('POST', `/v1/endpoints/${ep.body.id}/signing-secret`, { body: { overlap_seconds: 0 } });
    expect(generated.status).toBe(200);
    expect(generated.body).toMatchObject({ id: ep.body.id, signing_secret: expect.stringMatching(/^whsec_/), previous_secret_expires_at: null });
    generatedSecrets.push(generated.body.signing_secret);
    expect((await postSigned(env.api.baseUrl, ep.body.slug, SECRETS.endpointSigning, {})).status).toBe(401);
    expect((await postSigned(env.api.baseUrl, ep.body.slug, generated.body.signing_secret, {})).status).toBe(202);

    const given = await env.call('POST', `/v1/endpoints/${ep.body.id}/signing-secret`, { body: { signing_secret: SECRETS.endpointRotated, overlap_seconds: 600 } });
    expect(given.body).toMatchObject({ signing_secret: null, has_signing_secret: true, previous_secret_expires_at: expect.any(String) });
    expect((await postSigned(env.api.baseUrl, ep.body.slug, SECRETS.endpointRotated, {})).status).toBe(202);
    expect((await postSigned(env.api.baseUrl, ep.body.slug, generated.body.signing_secret, {})).status).toBe(202);

    const tooLong = await env.call('POST', `/v1/endpoints/${ep.body.id}/signing-secret`, { body: { overlap_seconds: 604_801 } });
    expect(tooLong.status).toBe(400);
    expect((await env.call('POST', `/v1/endpoints/${ep.body.id}/signing-secret`, { token: env.tokens.viewer, body: {} })).status).toBe(403);
  });

  it('deletes an endpoint with its events; afterwards it is 404 and ingress forgets the slug', async () => {
    const ep = await env.call('POST', '/v1/endpoints', { body: { name: 'Doomed', signing_secret: SECRETS.endpointSigning } });
    const entity = await env.em().findOneOrFail(WebhookEndpoint, ep.body.id);
    await insertEvent(env.api.container, entity);
    expect((await postSigned(env.api.baseUrl, ep.body.slug, SECRETS.endpointSigning, {})).status).toBe(202);
    const del = await env.call('DELETE', `/v1/endpoints/${ep.body.id}`);
    expect(del.status).toBe(204);
    expect((await env.call('GET', `/v1/endpoints/${ep.body.id}`)).status).toBe(404);
    expect((await env.call('DELETE', `/v1/endpoints/${ep.body.id}`)).status).toBe(404);
    const [{ n }] = await env.em().getConnection().execute('select count(*)::int as n from events where endpoint_id = ?', [ep.body.id]);
    expect(n).toBe(0);
    expect((await postSigned(env.api.baseUrl, ep.body.slug, SECRETS.endpointSigning, {})).status).toBe(404);
  });

  it('offers the same operations over GraphQL', async () => {
    const created = await env.query(`mutation($input: EndpointInput!) { createEndpoint(input: $input) { ${ENDPOINT_FIELDS} } }`, {
      input: { name: 'Graph Source', typingRules: [{ name: 't', logic: 'OR', conditions: [], parts: [{ path: 'header.X-Kind' }] }] },
    });
    expect(created.errors).toBeUndefined();
    const ep = created.data.createEndpoint;
    expect(ep).toMatchObject({ name: 'Graph Source', signingSecret: expect.stringMatching(/^whsec_/), hasSigningSecret: true, isActive: true });
    expect(ep.typingRules).toEqual([{ name: 't', logic: 'OR', conditions: [], parts: [{ path: 'header.X-Kind' }] }]);
    generatedSecrets.push(ep.signingSecret);

    const got = await env.query(`query($id: ID!) { endpoint(id: $id) { ${ENDPOINT_FIELDS} } }`, { id: ep.id });
    expect(got.data.endpoint).toMatchObject({ id: ep.id, signingSecret: null });
    const page1 = await env.query('{ endpoints(limit: 1) { data { id } nextCursor } }');
    expect(page1.data.endpoints.data).toEqual([{ id: ep.id }]);
    const page2 = await env.query('query($c: String) { endpoints(limit: 1, cursor: $c) { data { id } nextCursor } }', { c: page1.data.endpoints.nextCursor });
    expect(page2.data.endpoints.data[0].id).not.toBe(ep.id);

    const updated = await env.query('mutation($id: ID!) { updateEndpoint(id: $id, input: { isActive: false, eventTypePath: "kind" }) { isActive eventTypePath } }', { id: ep.id });
    expect(updated.data.updateEndpoint).toEqual({ isActive: false, eventTypePath: 'kind' });
    const rotated = await env.query('mutation($id: ID!) { rotateEndpointSecret(id: $id) { signingSecret previousSecretExpiresAt } }', { id: ep.id });
    expect(rotated.data.rotateEndpointSecret).toEqual({ signingSecret: expect.stringMatching(/^whsec_/), previousSecretExpiresAt: expect.any(String) });
    generatedSecrets.push(rotated.data.rotateEndpointSecret.signingSecret);

    const invalid = await env.query('mutation { createEndpoint(input: { name: "x", typingRules: [{ name: "r", parts: [] }] }) { id } }');
    expect(invalid.errors?.[0].extensions).toMatchObject({ code: 'invalid_input', status: 400 });
    expect((invalid.errors?.[0].extensions?.details as { fields: Array<{ field: string }> }).fields[0].field).toBe('typing_rules.0.parts');
    const dup = await env.query('mutation { createEndpoint(input: { name: "x", slug: "payments-in" }) { id } }');
    expect(dup.errors?.[0].extensions).toMatchObject({ code: 'slug_taken', status: 409 });
    const viewer = await env.query('mutation($id: ID!) { deleteEndpoint(id: $id) }', { id: ep.id }, { token: env.tokens.viewer });
    expect(viewer.errors?.[0].extensions).toMatchObject({ code: 'insufficient_role', status: 403 });
    const anon = await env.query('{ endpoints { data { id } } }', {}, { token: '' });
    expect(anon.errors?.[0].extensions).toMatchObject({ status: 401 });

    const deleted = await env.query('mutation($id: ID!) { deleteEndpoint(id: $id) }', { id: ep.id });
    expect(deleted.data.deleteEndpoint).toBe(true);
    const gone = await env.query('query($id: ID!) { endpoint(id: $id) { id } }', { id: ep.id });
    expect(gone.errors?.[0].extensions).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('lets a project API key act as a developer of its own project only', async () => {
    const { key } = await createApiKey(env.em(), env.owner.project);
    const created = await env.call('POST', '/v1/endpoints', { token: key, projectId: '', body: { name: 'By key' } });
    expect(created.status).toBe(201);
    expect(created.body.project_id).toBe(env.owner.project.id);
    generatedSecrets.push(created.body.signing_secret);
    const theirs = await env.call('POST', '/v1/endpoints', { token: env.tokens.stranger, projectId: env.stranger.project.id, body: { name: 'Theirs' } });
    generatedSecrets.push(theirs.body.signing_secret);
    expect((await env.call('GET', `/v1/endpoints/${theirs.body.id}`, { token: key, projectId: '' })).status).toBe(404);
    expect((await env.call('GET', '/v1/endpoints', { token: key, projectId: env.stranger.project.id })).status).toBe(404);
  });

  it('documents every resource route in the OpenAPI document, with its access', async () => {
    const doc = (await env.call('GET', '/v1/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/endpoints', '/v1/endpoints/{id}', '/v1/endpoints/{id}/signing-secret', '/v1/endpoints/{id}/filter-groups', '/v1/endpoints/{id}/filter-groups/{groupId}',
        '/v1/endpoints/{id}/destinations', '/v1/endpoints/{id}/destinations/{destinationId}', '/v1/destinations', '/v1/destinations/{id}',
        '/v1/destinations/{id}/signing-secret', '/v1/templates', '/v1/templates/{id}', '/v1/templates/preview', '/v1/transforms', '/v1/transforms/{id}',
      ]),
    );
    expect(doc.paths['/v1/destinations'].post['x-required-access']).toEqual({ scope: 'project', permission: 'write' });
    expect(doc.paths['/v1/endpoints/{id}'].get['x-required-access']).toEqual({ scope: 'project', permission: 'read' });
  });

  it('never returned a secret it was given, and each generated secret exactly once', () => {
    expectNoSecrets(env.bodies);
    for (const secret of generatedSecrets) expect(env.bodies.filter((b) => b.includes(secret))).toHaveLength(1);
  });
});
