import { postSigned } from '../support/ingress-helpers';
import { collectPages, expectNoSecrets, type ResourceEnv, SECRETS, startResourceEnv } from './resource-harness';

describe('filter groups and endpoint–destination links over REST and GraphQL', () => {
  let env: ResourceEnv;
  let endpoint: { id: string; slug: string };
  let destinationId: string;
  let otherDestinationId: string;

  beforeAll(async () => {
    env = await startResourceEnv();
    endpoint = (await env.call('POST', '/v1/endpoints', { body: { name: 'Filtered', signing_secret: SECRETS.endpointSigning } })).body;
    destinationId = (await env.call('POST', '/v1/destinations', { body: { name: 'D1', type: 'webhook', webhook_url: `https://r.example.test/${SECRETS.webhookPath}` } })).body.id;
    otherDestinationId = (await env.call('POST', '/v1/destinations', { body: { name: 'D2', type: 'chat_a', webhook_url: `https://c.example.test/${SECRETS.chatWebhookPath}` } })).body.id;
  });
  afterAll(() => env.close());

  const groups = () => `/v1/endpoints/${endpoint.id}/filter-groups`;
  const links = () => `/v1/endpoints/${endpoint.id}/destinations`;
  const statusOf = async (payload: unknown, headers: Record<string, string> = {}) => {
    const res = await postSigned(env.api.baseUrl, endpoint.slug, SECRETS.endpointSigning, payload, headers);
    const [row] = await env.em().getConnection().execute('select status from events where id = ?', [res.body.event_id]);
    return row.status as string;
  };

  describe('filter groups', () => {
    it('creates a group with ordered conditions, and ingress applies it at once', async () => {
      expect(await statusOf({ action: 'closed' })).toBe('received');
      const res = await env.call('POST', groups(), {
        body: { name: 'opened PRs', logic: 'AND', conditions: [{ field: 'body.action', operator: 'eq', value: 'opened' }, { field: 'header.X-Kind', operator: 'regex', value: '^pr' }] },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ endpoint_id: endpoint.id, name: 'opened PRs', logic: 'AND', is_enabled: true });
      expect(res.body.conditions).toEqual([
        { id: expect.any(String), filter_id: res.body.id, field: 'body.action', operator: 'eq', value: 'opened', position: 0 },
        { id: expect.any(String), filter_id: res.body.id, field: 'header.X-Kind', operator: 'regex', value: '^pr', position: 1 },
      ]);
      expect(await statusOf({ action: 'closed' }, { 'X-Kind': 'pr' })).toBe('filtered');
      expect(await statusOf({ action: 'opened' }, { 'X-Kind': 'pr' })).toBe('received');
    });

    it('updates (conditions replace the list, positions follow the order), disables and deletes; ingress follows each change', async () => {
      const created = (await env.call('GET', groups())).body.data[0];
      const updated = await env.call('PATCH', `${groups()}/${created.id}`, {
        body: { logic: 'OR', conditions: [{ field: 'body.action', operator: 'eq', value: 'merged' }, { field: 'body.draft', operator: 'not_exists' }, { field: 'body.x', operator: 'exists' }] },
      });
      expect(updated.status).toBe(200);
      expect(updated.body.logic).toBe('OR');
      expect(updated.body.conditions.map((c: { field: string; position: number; value: string }) => [c.position, c.field, c.value])).toEqual([
        [0, 'body.action', 'merged'],
        [1, 'body.draft', ''],
        [2, 'body.x', ''],
      ]);
      expect((await env.call('GET', `${groups()}/${created.id}`)).body.conditions).toHaveLength(3);
      expect(await statusOf({ action: 'opened', draft: true })).toBe('filtered');
      expect((await env.call('PATCH', `${groups()}/${created.id}`, { body: { is_enabled: false } })).body.is_enabled).toBe(false);
      expect(await statusOf({ action: 'opened', draft: true })).toBe('received');
      await env.call('PATCH', `${groups()}/${created.id}`, { body: { is_enabled: true } });
      expect(await statusOf({ action: 'opened', draft: true })).toBe('filtered');
      expect((await env.call('DELETE', `${groups()}/${created.id}`)).status).toBe(204);
      expect(await statusOf({ action: 'opened', draft: true })).toBe('received');
      expect((await env.call('GET', `${groups()}/${created.id}`)).status).toBe(404);
    });

    it('refuses invalid input with the field named: logic, operator, bad field path, invalid regex', async () => {
      const cases: Array<[unknown, string]> = [
        [{ name: 'x', logic: 'XOR' }, 'logic'],
        [{ name: 'x', conditions: [{ field: 'body.a', operator: 'like', value: 'a' }] }, 'conditions.0.operator'],
        [{ name: 'x', conditions: [{ field: 'query.a', operator: 'eq', value: 'a' }] }, 'conditions.0.field'],
        [{ name: 'x', conditions: [{ field: 'body.a', operator: 'eq', value: 'a' }, { field: 'body.b', operator: 'regex', value: '(?<=x)a' }] }, 'conditions.1.value'],
        [{ conditions: [] }, 'name'],
      ];
      for (const [body, field] of cases) {
        const res = await env.call('POST', groups(), { body });
        expect({ field, status: res.status }).toEqual({ field, status: 400 });
        expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
      }
    });

    it('paginates, and answers 401, 403 (viewer writes) and 404 (other organization, other endpoint)', async () => {
      for (const name of ['g1', 'g2', 'g3']) await env.call('POST', groups(), { body: { name, is_enabled: false } });
      const { ids, pages } = await collectPages(env, groups(), 2);
      expect(ids).toHaveLength(3);
      expect(pages).toBe(2);
      expect((await env.call('GET', groups(), { token: '' })).status).toBe(401);
      expect((await env.call('GET', groups(), { token: env.tokens.viewer })).status).toBe(200);
      const forbidden = await env.call('POST', groups(), { token: env.tokens.viewer, body: { name: 'v' } });
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.error.details.required_role).toBe('developer');
      const asStranger = { token: env.tokens.stranger, projectId: env.stranger.project.id };
      expect((await env.call('GET', groups(), asStranger)).status).toBe(404);
      expect((await env.call('PATCH', `${groups()}/${ids[0]}`, { ...asStranger, body: { name: 'x' } })).status).toBe(404);
      const otherEndpoint = (await env.call('POST', '/v1/endpoints', { body: { name: 'other' } })).body;
      expect((await env.call('GET', `/v1/endpoints/${otherEndpoint.id}/filter-groups/${ids[0]}`)).status).toBe(404);
    });

    it('offers the same operations over GraphQL', async () => {
      const created = await env.query(
        'mutation($e: ID!) { createFilterGroup(endpointId: $e, input: { name: "gq", logic: "OR", conditions: [{ field: "body.a", operator: "eq", value: "1" }, { field: "header.X-B", operator: "exists" }] }) { id name logic isEnabled conditions { field operator value position filterId } } }',
        { e: endpoint.id },
      );
      expect(created.errors).toBeUndefined();
      const g = created.data.createFilterGroup;
      expect(g.conditions).toEqual([
        { field: 'body.a', operator: 'eq', value: '1', position: 0, filterId: g.id },
        { field: 'header.X-B', operator: 'exists', value: '', position: 1, filterId: g.id },
      ]);
      const list = await env.query('query($e: ID!) { filterGroups(endpointId: $e, limit: 1) { data { id } nextCursor } }', { e: endpoint.id });
      expect(list.data.filterGroups.data).toEqual([{ id: g.id }]);
      expect(list.data.filterGroups.nextCursor).toEqual(expect.any(String));
      const got = await env.query('query($e: ID!, $id: ID!) { filterGroup(endpointId: $e, id: $id) { name } }', { e: endpoint.id, id: g.id });
      expect(got.data.filterGroup.name).toBe('gq');
      const upd = await env.query('mutation($e: ID!, $id: ID!) { updateFilterGroup(endpointId: $e, id: $id, input: { isEnabled: false, conditions: [] }) { isEnabled conditions { field } } }', { e: endpoint.id, id: g.id });
      expect(upd.data.updateFilterGroup).toEqual({ isEnabled: false, conditions: [] });
      const bad = await env.query('mutation($e: ID!) { createFilterGroup(endpointId: $e, input: { name: "b", conditions: [{ field: "body.a", operator: "regex", value: "[" }] }) { id } }', { e: endpoint.id });
      expect(bad.errors?.[0].extensions).toMatchObject({ code: 'invalid_input', status: 400, details: { fields: [{ field: 'conditions.0.value' }] } });
      const viewer = await env.query('mutation($e: ID!, $id: ID!) { deleteFilterGroup(endpointId: $e, id: $id) }', { e: endpoint.id, id: g.id }, { token: env.tokens.viewer });
      expect(viewer.errors?.[0].extensions).toMatchObject({ code: 'insufficient_role', status: 403 });
      const stranger = await env.query('query($e: ID!) { filterGroups(endpointId: $e) { data { id } } }', { e: endpoint.id }, { token: env.tokens.stranger, projectId: env.stranger.project.id });
      expect(stranger.errors?.[0].extensions).toMatchObject({ code: 'not_found', status: 404 });
      expect((await env.query('mutation($e: ID!, $id: ID!) { deleteFilterGroup(endpointId: $e, id: $id) }', { e: endpoint.id, id: g.id })).data.deleteFilterGroup).toBe(true);
    });
  });

  describe('links', () => {
    let templateId: string;
    let transformId: string;

    beforeAll(async () => {
      templateId = (await env.call('POST', '/v1/templates', { body: { name: 't', config: { title: '{{ .Meta.EventType }}' } } })).body.id;
      transformId = (await env.call('POST', '/v1/transforms', { body: { name: 'x', expression: '{ "a": a }' } })).body.id;
    });

    it('links a destination with template, transform and routing rules; header_prefix comes from the project; one link per pair (409)', async () => {
      const rules = [{ name: 'issues', logic: 'OR', conditions: [{ field: 'header.X-Kind', operator: 'eq', value: 'issue' }], template_id: templateId }];
      const res = await env.call('POST', links(), { body: { destination_id: destinationId, template_id: templateId, transform_id: transformId, routing_rules: rules } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        endpoint_id: endpoint.id,
        destination_id: destinationId,
        template_id: templateId,
        transform_id: transformId,
        routing_rules: [{ ...rules[0], transform_id: null }],
        header_prefix: 'Service',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const dup = await env.call('POST', links(), { body: { destination_id: destinationId } });
      expect(dup.status).toBe(409);
      expect(dup.body.error.code).toBe('already_linked');
      expect((await env.call('GET', `${links()}/${destinationId}`)).body.transform_id).toBe(transformId);
    });

    it('refuses routing rules that are invalid and ids from another project (400 with the field)', async () => {
      const theirTemplate = (await env.call('POST', '/v1/templates', { token: env.tokens.stranger, projectId: env.stranger.project.id, body: { name: 'theirs', config: {} } })).body.id;
      const theirDestination = (
        await env.call('POST', '/v1/destinations', { token: env.tokens.stranger, projectId: env.stranger.project.id, body: { name: 'theirs', type: 'webhook', webhook_url: 'https://x.test/' } })
      ).body.id;
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ destination_id: otherDestinationId, template_id: theirTemplate }, 'template_id', 'invalid_reference'],
        [{ destination_id: theirDestination }, 'destination_id', 'invalid_reference'],
        [{ destination_id: otherDestinationId, routing_rules: [{ name: 'r', logic: 'AND', conditions: [], template_id: theirTemplate }] }, 'routing_rules[0].template_id', 'invalid_reference'],
        [{ destination_id: otherDestinationId, routing_rules: [{ name: 'r', logic: 'AND', conditions: [{ field: 'body.a', operator: 'regex', value: '(' }], template_id: templateId }] }, 'routing_rules[0].conditions[0]', 'invalid_input'],
        [{ destination_id: otherDestinationId, routing_rules: [{ name: 'r', logic: 'NAND', conditions: [], template_id: templateId }] }, 'routing_rules[0].logic', 'invalid_input'],
        [{ destination_id: otherDestinationId, routing_rules: [{ name: 'r', logic: 'AND', conditions: [] }] }, 'routing_rules[0]', 'invalid_input'],
        [{ destination_id: 'nope' }, 'destination_id', 'invalid_input'],
      ];
      for (const [body, field, code] of cases) {
        const res = await env.call('POST', links(), { body });
        expect({ field, status: res.status, code: res.body.error?.code }).toEqual({ field, status: 400, code });
        expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
      }
      expect((await env.call('GET', links())).body.data).toHaveLength(1);
    });

    it('updates, lists with pagination, and blocks deleting a template or transform in use (409) until unlinked', async () => {
      const second = await env.call('POST', links(), { body: { destination_id: otherDestinationId } });
      expect(second.status).toBe(201);
      const { ids } = await collectPages(env, links(), 1);
      expect(ids).toEqual([second.body.id, expect.any(String)]);

      const inUse = await env.call('DELETE', `/v1/templates/${templateId}`);
      expect(inUse.status).toBe(409);
      expect(inUse.body.error.code).toBe('template_in_use');
      const updated = await env.call('PATCH', `${links()}/${destinationId}`, { body: { template_id: null, routing_rules: [] } });
      expect(updated.body).toMatchObject({ template_id: null, routing_rules: [], transform_id: transformId });
      expect((await env.call('DELETE', `/v1/transforms/${transformId}`)).body.error.code).toBe('transform_in_use');
      const move = await env.call('PATCH', `${links()}/${destinationId}`, { body: { destination_id: otherDestinationId } });
      expect(move.status).toBe(400);
      expect(move.body.error.details.fields[0].field).toBe('destination_id');
      expect((await env.call('DELETE', `/v1/templates/${templateId}`)).status).toBe(204);
    });

    it('answers 401, 403 and 404 across organizations; delete unlinks', async () => {
      expect((await env.call('GET', links(), { token: '' })).status).toBe(401);
      expect((await env.call('DELETE', `${links()}/${otherDestinationId}`, { token: env.tokens.viewer })).status).toBe(403);
      const asStranger = { token: env.tokens.stranger, projectId: env.stranger.project.id };
      expect((await env.call('GET', `${links()}/${otherDestinationId}`, asStranger)).status).toBe(404);
      expect((await env.call('DELETE', `${links()}/${otherDestinationId}`, asStranger)).status).toBe(404);
      expect((await env.call('DELETE', `${links()}/${otherDestinationId}`)).status).toBe(204);
      expect((await env.call('GET', `${links()}/${otherDestinationId}`)).status).toBe(404);
    });

    it('offers the same operations over GraphQL', async () => {
      const t = (await env.call('POST', '/v1/templates', { body: { name: 't2', config: {} } })).body.id;
      const fields = 'id endpointId destinationId templateId transformId routingRules headerPrefix';
      const created = await env.query(`mutation($e: ID!, $input: LinkInput!) { createLink(endpointId: $e, input: $input) { ${fields} } }`, {
        e: endpoint.id,
        input: { destinationId: otherDestinationId, routingRules: [{ name: 'r', logic: 'AND', conditions: [{ field: 'body.a', operator: 'exists' }], template_id: t }] },
      });
      expect(created.errors).toBeUndefined();
      expect(created.data.createLink).toMatchObject({ destinationId: otherDestinationId, headerPrefix: 'Service', routingRules: [{ name: 'r', template_id: t, transform_id: null }] });
      const list = await env.query('query($e: ID!) { links(endpointId: $e, limit: 1) { data { destinationId } nextCursor } }', { e: endpoint.id });
      expect(list.data.links.data).toEqual([{ destinationId: otherDestinationId }]);
      const got = await env.query('query($e: ID!, $d: ID!) { link(endpointId: $e, destinationId: $d) { templateId } }', { e: endpoint.id, d: otherDestinationId });
      expect(got.data.link.templateId).toBeNull();
      const upd = await env.query('mutation($e: ID!, $d: ID!, $t: ID!) { updateLink(endpointId: $e, destinationId: $d, input: { templateId: $t }) { templateId } }', { e: endpoint.id, d: otherDestinationId, t });
      expect(upd.data.updateLink.templateId).toBe(t);
      const dup = await env.query('mutation($e: ID!, $d: ID!) { createLink(endpointId: $e, input: { destinationId: $d }) { id } }', { e: endpoint.id, d: otherDestinationId });
      expect(dup.errors?.[0].extensions).toMatchObject({ code: 'already_linked', status: 409 });
      const bad = await env.query('mutation($e: ID!, $d: ID!) { updateLink(endpointId: $e, destinationId: $d, input: { routingRules: [{ name: "x" }] }) { id } }', { e: endpoint.id, d: otherDestinationId });
      expect(bad.errors?.[0].extensions).toMatchObject({ code: 'invalid_input', status: 400 });
      const viewer = await env.query('mutation($e: ID!, $d: ID!) { deleteLink(endpointId: $e, destinationId: $d) }', { e: endpoint.id, d: otherDestinationId }, { token: env.tokens.viewer });
      expect(viewer.errors?.[0].extensions).toMatchObject({ code: 'insufficient_role', status: 403 });
      const stranger = await env.query('query($e: ID!) { links(endpointId: $e) { data { id } } }', { e: endpoint.id }, { token: env.tokens.stranger, projectId: env.stranger.project.id });
      expect(stranger.errors?.[0].extensions).toMatchObject({ code: 'not_found', status: 404 });
      expect((await env.query('mutation($e: ID!, $d: ID!) { deleteLink(endpointId: $e, destinationId: $d) }', { e: endpoint.id, d: otherDestinationId })).data.deleteLink).toBe(true);
    });
  });

  it('never returned a secret it was given', () => {
    expect(env.bodies.length).toBeGreaterThan(50);
    expectNoSecrets(env.bodies);
  });
});
