import { createEndpoint, insertEvent } from '../support/factories';
import { collectPages, expectNoSecrets, type ResourceEnv, startResourceEnv } from './resource-harness';

const V2_CONFIG = {
  version: 2,
  platforms: {
    chat_b: { title: 'PR {{ .Payload.number }}', fields: [{ name: 'Repo', value: '{{ .Payload.repo | upper }}', inline: true }] },
    default: { title: '{{ .Meta.EventType }}' },
  },
};

describe('message templates, preview and transforms over REST and GraphQL', () => {
  let env: ResourceEnv;

  beforeAll(async () => {
    env = await startResourceEnv();
  });
  afterAll(() => env.close());

  describe('templates', () => {
    it('creates, gets, lists with pagination, updates and deletes v1 and v2 configs', async () => {
      const v1 = await env.call('POST', '/v1/templates', { body: { name: 'flat', config: { title: '{{ .Meta.EventType }}', description: '{{ .Payload.text }}', color: 3447003 } } });
      expect(v1.status).toBe(201);
      expect(v1.body).toMatchObject({ name: 'flat', project_id: env.owner.project.id, config: { title: '{{ .Meta.EventType }}', color: 3447003 } });
      const v2 = await env.call('POST', '/v1/templates', { body: { name: 'per platform', config: V2_CONFIG } });
      expect(v2.body.config).toEqual(V2_CONFIG);
      expect((await env.call('GET', `/v1/templates/${v2.body.id}`)).body).toEqual(v2.body);
      await env.call('POST', '/v1/templates', { body: { name: 'third', config: {} } });
      const { ids, pages } = await collectPages(env, '/v1/templates', 2);
      expect(ids).toHaveLength(3);
      expect(pages).toBe(2);
      const renamed = await env.call('PATCH', `/v1/templates/${v1.body.id}`, { body: { name: 'flat 2', config: { telegram_html: '<b>{{ .Payload.x }}</b>' } } });
      expect(renamed.body).toMatchObject({ name: 'flat 2', config: { telegram_html: '<b>{{ .Payload.x }}</b>' } });
      expect((await env.call('DELETE', `/v1/templates/${v1.body.id}`)).status).toBe(204);
      expect((await env.call('GET', `/v1/templates/${v1.body.id}`)).status).toBe(404);
    });

    it('refuses a broken config with its path and line (400), on create and on update', async () => {
      const syntax = await env.call('POST', '/v1/templates', { body: { name: 'bad', config: { description: 'line one\n{{ .Payload.x | }}' } } });
      expect(syntax.status).toBe(400);
      expect(syntax.body.error.details.fields[0]).toMatchObject({ field: 'config.description', line: 2 });
      const unknownKey = await env.call('POST', '/v1/templates', { body: { name: 'bad', config: { version: 2, platforms: { chat_z: {} } } } });
      expect(unknownKey.body.error.details.fields[0].field).toBe('config.platforms.chat_z');
      expect((await env.call('POST', '/v1/templates', { body: { name: 'bad', config: 'title' } })).body.error.details.fields[0].field).toBe('config');
      expect((await env.call('POST', '/v1/templates', { body: { config: {} } })).body.error.details.fields[0].field).toBe('name');
      const existing = (await env.call('GET', '/v1/templates')).body.data[0];
      const upd = await env.call('PATCH', `/v1/templates/${existing.id}`, { body: { config: { fields: [{ name: '{% if %}' }] } } });
      expect(upd.status).toBe(400);
      expect(upd.body.error.details.fields[0].field).toBe('config.fields[0].name');
      expect((await env.call('GET', `/v1/templates/${existing.id}`)).body.config).toEqual(existing.config);
    });

    it('answers 401, 403 to a viewer writing, 404 across organizations', async () => {
      const t = (await env.call('GET', '/v1/templates')).body.data[0];
      expect((await env.call('GET', '/v1/templates', { token: '' })).status).toBe(401);
      expect((await env.call('GET', `/v1/templates/${t.id}`, { token: env.tokens.viewer })).status).toBe(200);
      expect((await env.call('PATCH', `/v1/templates/${t.id}`, { token: env.tokens.viewer, body: { name: 'x' } })).status).toBe(403);
      expect((await env.call('POST', '/v1/templates', { token: env.tokens.viewer, body: { name: 'x', config: {} } })).status).toBe(403);
      const asStranger = { token: env.tokens.stranger, projectId: env.stranger.project.id };
      expect((await env.call('GET', `/v1/templates/${t.id}`, asStranger)).status).toBe(404);
      expect((await env.call('DELETE', `/v1/templates/${t.id}`, asStranger)).status).toBe(404);
      expect((await env.call('GET', '/v1/templates', asStranger)).body.data).toEqual([]);
    });

    it('offers the same operations over GraphQL', async () => {
      const created = await env.query('mutation($c: JSON!) { createTemplate(input: { name: "gq", config: $c }) { id name config } }', { c: V2_CONFIG });
      expect(created.errors).toBeUndefined();
      const t = created.data.createTemplate;
      expect(t.config).toEqual(V2_CONFIG);
      expect((await env.query('query($id: ID!) { template(id: $id) { name } }', { id: t.id })).data.template.name).toBe('gq');
      const list = await env.query('{ templates(limit: 1) { data { id } nextCursor } }');
      expect(list.data.templates).toEqual({ data: [{ id: t.id }], nextCursor: expect.any(String) });
      expect((await env.query('mutation($id: ID!) { updateTemplate(id: $id, input: { name: "gq2" }) { name } }', { id: t.id })).data.updateTemplate.name).toBe('gq2');
      const bad = await env.query('mutation($id: ID!) { updateTemplate(id: $id, input: { config: { title: "{{ .Payload.x " } }) { id } }', { id: t.id });
      expect(bad.errors?.[0].extensions).toMatchObject({ code: 'invalid_input', status: 400, details: { fields: [{ field: 'config.title' }] } });
      const viewer = await env.query('mutation($id: ID!) { deleteTemplate(id: $id) }', { id: t.id }, { token: env.tokens.viewer });
      expect(viewer.errors?.[0].extensions).toMatchObject({ code: 'insufficient_role', status: 403 });
      const stranger = await env.query('query($id: ID!) { template(id: $id) { id } }', { id: t.id }, { token: env.tokens.stranger, projectId: env.stranger.project.id });
      expect(stranger.errors?.[0].extensions).toMatchObject({ code: 'not_found', status: 404 });
      expect((await env.query('mutation($id: ID!) { deleteTemplate(id: $id) }', { id: t.id })).data.deleteTemplate).toBe(true);
    });
  });

  describe('preview (docs/templates.md)', () => {
    it('renders a saved template and transform against a sample payload, per destination type, without delivering', async () => {
      const template = (await env.call('POST', '/v1/templates', { body: { name: 'p', config: V2_CONFIG } })).body;
      const transform = (await env.call('POST', '/v1/transforms', { body: { name: 'p', expression: '{ "number": pr.number, "repo": pr.repo }' } })).body;
      const res = await env.call('POST', '/v1/templates/preview', {
        token: env.tokens.viewer,
        body: { template_id: template.id, transform_id: transform.id, payload: { pr: { number: 7, repo: 'relay' } }, destination_types: ['chat_b', 'webhook'] },
      });
      expect(res.status).toBe(200);
      expect(res.body.errors).toEqual([]);
      expect(res.body.transformed_payload).toEqual({ number: 7, repo: 'relay' });
      expect(res.body.outputs.webhook).toEqual({ number: 7, repo: 'relay' });
      expect(JSON.stringify(res.body.outputs.chat_b)).toContain('PR 7');
      expect(JSON.stringify(res.body.outputs.chat_b)).toContain('RELAY');
      expect(Object.keys(res.body.outputs).sort()).toEqual(['chat_b', 'webhook']);
    });

    it('renders against a stored event of the project, and not of another organization', async () => {
      const { endpoint } = await createEndpoint(env.api.container, env.em(), env.owner.project);
      const eventId = await insertEvent(env.api.container, endpoint, { payload: { number: 42, repo: 'x' }, eventType: 'pull_request' });
      const res = await env.call('POST', '/v1/templates/preview', { body: { template_config: V2_CONFIG, event_id: eventId, destination_types: ['chat_a'] } });
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body.outputs.chat_a)).toContain('pull_request');
      const stranger = await env.call('POST', '/v1/templates/preview', { token: env.tokens.stranger, projectId: env.stranger.project.id, body: { template_config: {}, event_id: eventId } });
      expect(stranger.status).toBe(404);
    });

    it('reports template and transform problems in the answer, and refuses bad input with 400', async () => {
      const broken = await env.call('POST', '/v1/templates/preview', { body: { template_config: { title: '{{ .Payload.x ' }, payload: {} } });
      expect(broken.status).toBe(200);
      expect(broken.body.errors[0]).toMatchObject({ stage: 'template', path: 'title' });
      const badTransform = await env.call('POST', '/v1/templates/preview', { body: { transform_expression: '$$$(', payload: {} } });
      expect(badTransform.body.errors[0]).toMatchObject({ stage: 'transform' });
      const nothing = await env.call('POST', '/v1/templates/preview', { body: { template_config: {} } });
      expect(nothing.status).toBe(400);
      const badType = await env.call('POST', '/v1/templates/preview', { body: { payload: {}, destination_types: ['fax'] } });
      expect(badType.status).toBe(400);
      expect(badType.body.error.details.fields[0].field).toBe('destination_types.0');
      expect((await env.call('POST', '/v1/templates/preview', { token: '', body: { payload: {} } })).status).toBe(401);
    });

    it('is offered over GraphQL as previewTemplate', async () => {
      const res = await env.query('query($p: JSON) { previewTemplate(input: { templateConfig: { title: "Hi {{ .Payload.name | upper }}" }, payload: $p, destinationTypes: ["chat_c"] }) { transformedPayload outputs errors { stage message } } }', {
        p: { name: 'bob' },
      });
      expect(res.errors).toBeUndefined();
      expect(res.data.previewTemplate.errors).toEqual([]);
      expect(JSON.stringify(res.data.previewTemplate.outputs.chat_c)).toContain('Hi BOB');
      const bad = await env.query('{ previewTemplate(input: { destinationTypes: ["fax"], payload: {} }) { errors { message } } }');
      expect(bad.errors?.[0].extensions).toMatchObject({ code: 'invalid_input', status: 400 });
    });
  });

  describe('transforms', () => {
    it('creates, gets, lists, updates and deletes; a broken expression is 400 with its position', async () => {
      const created = await env.call('POST', '/v1/transforms', { body: { name: 'slim', expression: '{ "id": id }' } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'slim', expression: '{ "id": id }', project_id: env.owner.project.id });
      expect((await env.call('GET', `/v1/transforms/${created.body.id}`)).body).toEqual(created.body);
      await env.call('POST', '/v1/transforms', { body: { name: 'two', expression: '$' } });
      const { ids } = await collectPages(env, '/v1/transforms', 1);
      expect(ids.length).toBeGreaterThanOrEqual(3);
      const bad = await env.call('POST', '/v1/transforms', { body: { name: 'bad', expression: '{ "a": (1 + }' } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details.fields[0]).toMatchObject({ field: 'expression', position: expect.any(Number) });
      expect((await env.call('POST', '/v1/transforms', { body: { name: 'empty', expression: '' } })).body.error.details.fields[0].field).toBe('expression');
      const badUpdate = await env.call('PATCH', `/v1/transforms/${created.body.id}`, { body: { expression: 'foo(' } });
      expect(badUpdate.status).toBe(400);
      const upd = await env.call('PATCH', `/v1/transforms/${created.body.id}`, { body: { expression: '{ "id": id, "n": 1 }' } });
      expect(upd.body.expression).toBe('{ "id": id, "n": 1 }');
      expect((await env.call('DELETE', `/v1/transforms/${created.body.id}`)).status).toBe(204);
      expect((await env.call('GET', `/v1/transforms/${created.body.id}`)).status).toBe(404);
    });

    it('answers 401, 403 and 404 across organizations', async () => {
      const t = (await env.call('GET', '/v1/transforms')).body.data[0];
      expect((await env.call('GET', '/v1/transforms', { token: '' })).status).toBe(401);
      expect((await env.call('DELETE', `/v1/transforms/${t.id}`, { token: env.tokens.viewer })).status).toBe(403);
      const asStranger = { token: env.tokens.stranger, projectId: env.stranger.project.id };
      expect((await env.call('PATCH', `/v1/transforms/${t.id}`, { ...asStranger, body: { name: 'x' } })).status).toBe(404);
      expect((await env.call('GET', '/v1/transforms', asStranger)).body.data).toEqual([]);
    });

    it('offers the same operations over GraphQL', async () => {
      const created = await env.query('mutation { createTransform(input: { name: "g", expression: "$uppercase(name)" }) { id name expression } }');
      expect(created.errors).toBeUndefined();
      const t = created.data.createTransform;
      expect((await env.query('query($id: ID!) { transform(id: $id) { expression } }', { id: t.id })).data.transform.expression).toBe('$uppercase(name)');
      expect((await env.query('{ transforms(limit: 1) { data { id } nextCursor } }')).data.transforms.data).toEqual([{ id: t.id }]);
      expect((await env.query('mutation($id: ID!) { updateTransform(id: $id, input: { name: "g2" }) { name } }', { id: t.id })).data.updateTransform.name).toBe('g2');
      const bad = await env.query('mutation($id: ID!) { updateTransform(id: $id, input: { expression: "(" }) { id } }', { id: t.id });
      expect(bad.errors?.[0].extensions).toMatchObject({ code: 'invalid_input', status: 400, details: { fields: [{ field: 'expression' }] } });
      const viewer = await env.query('mutation($id: ID!) { deleteTransform(id: $id) }', { id: t.id }, { token: env.tokens.viewer });
      expect(viewer.errors?.[0].extensions).toMatchObject({ code: 'insufficient_role', status: 403 });
      const stranger = await env.query('query($id: ID!) { transform(id: $id) { id } }', { id: t.id }, { token: env.tokens.stranger, projectId: env.stranger.project.id });
      expect(stranger.errors?.[0].extensions).toMatchObject({ code: 'not_found', status: 404 });
      expect((await env.query('mutation($id: ID!) { deleteTransform(id: $id) }', { id: t.id })).data.deleteTransform).toBe(true);
    });
  });

  it('never returned a secret (none are set here; the scan still runs over every body)', () => {
    expect(env.bodies.length).toBeGreaterThan(40);
    expectNoSecrets(env.bodies);
  });
});
