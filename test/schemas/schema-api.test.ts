import { OrganizationMember } from '../../src/organizations/organization-member.entity';
import { LEARNER_DEFAULTS, learnSchemas } from '../../src/schemas/schema-learner';
import { User } from '../../src/users/user.entity';
import { gql, rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { createEndpoint, createWorkspace, insertEvent } from '../support/factories';
import { clone, examplesOf } from './corpus';

/**
 * Inferred schemas over REST and GraphQL (one service): a source's event types as JSON Schema, one
 * schema's paths and drift history, accepting its changes; the source's schema and silence settings.
 */
describe('schemas API (REST and GraphQL, real PostgreSQL)', () => {
  let api: TestApi;
  let token: string;
  let viewerToken: string;
  let projectId: string;
  let sourceId: string;
  let systemId: string;

  const learn = async () => {
    while ((await learnSchemas(api.container.orm.em.getConnection().getKnex(), { ...LEARNER_DEFAULTS, lagMs: -1000, warmupEvents: 20, warmupSeconds: 3600 })).more);
  };

  beforeAll(async () => {
    api = await startTestApi();
    const em = api.container.orm.em.fork();
    const ws = await createWorkspace(em);
    const viewer = em.create(User, { email: `viewer-${ws.project.id}@example.test`, name: 'Viewer' });
    em.create(OrganizationMember, { organization: ws.organization, user: viewer, role: 'viewer' });
    await em.flush();
    token = await tokenFor(api.container, ws.user.id);
    viewerToken = await tokenFor(api.container, viewer.id);
    projectId = ws.project.id;
    const { endpoint } = await createEndpoint(api.container, em, ws.project, { name: 'Codehost A', provider: 'codehost_a' });
    sourceId = endpoint.id;
    systemId = (await api.container.orm.em.getConnection().execute<Array<{ id: string }>>('select id from webhook_endpoints where project_id = ? and is_system', [projectId]))[0].id;
    for (const payload of [...examplesOf('push'), ...examplesOf('issues')]) await insertEvent(api.container, endpoint, { eventType: payload.commits ? 'push' : 'issues', payload });
    const changed = clone(examplesOf('issues')[0]);
    changed.issue.number = 'forty-two';
    await insertEvent(api.container, endpoint, { eventType: 'issues', payload: changed });
    await learn();
  });

  afterAll(async () => {
    await api?.close();
  });

  const call = (method: string, path: string, body?: unknown, as = token) => rest(api.baseUrl, method, path, { token: as, projectId, body });

  it("lists a source's event types with their JSON Schema, counts and examples", async () => {
    const res = await call('GET', `/v1/endpoints/${sourceId}/schemas`);
    expect(res.status).toBe(200);
    expect(res.body.source).toEqual({ id: sourceId, name: 'Codehost A', slug: expect.any(String), schema_alerts: 'changes', silence_alerts: 'learned', expected_interval_seconds: null });
    expect(res.body.activity).toMatchObject({ event_count: 37, untracked_event_count: 0, last_event_at: expect.any(String), learned_interval_seconds: null, expected_within_seconds: null, silent_since: null });
    expect(res.body.warmup_events).toBe(20);
    expect(res.body.data.map((s: { event_type: string }) => s.event_type)).toEqual(['issues', 'push']);
    const [issues, push] = res.body.data;
    expect(issues).toMatchObject({ event_count: 30, learned_count: 30, warm: true, pending_changes: 1, truncated: false, last_change_at: expect.any(String) });
    expect(push).toMatchObject({ event_count: 7, warm: false, pending_changes: 0, last_change_at: null });
    expect(push.examples.length).toBeGreaterThan(0);
    expect(push.examples[0]).toEqual({ event_id: expect.any(String), count: expect.any(Number), first_seen_at: expect.any(String), last_seen_at: expect.any(String) });
    expect(push.json_schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'push',
      type: 'object',
      properties: { ref: { type: 'string' }, commits: { type: 'array', items: { type: 'object' } } },
    });
    expect(push.json_schema.required).toEqual(expect.arrayContaining(['ref', 'before', 'after', 'repository', 'sender']));
    expect(issues.json_schema.properties.issue.properties.number).toEqual({ type: ['integer', 'string'] });

    const one = await call('GET', `/v1/endpoints/${sourceId}/schemas?event_type=push`);
    expect(one.body.data.map((s: { id: string }) => s.id)).toEqual([push.id]);
  });

  it('shows one schema with its paths and drift history; GraphQL answers the same', async () => {
    const list = await call('GET', `/v1/endpoints/${sourceId}/schemas?event_type=issues`);
    const id = list.body.data[0].id;
    const res = await call('GET', `/v1/event-schemas/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.paths.find((p: { path: string }) => p.path === 'issue.number')).toEqual({
      path: 'issue.number',
      types: { integer: 29, string: 1 },
      count: 30,
      frequency: 1,
      required: true,
      first_seen_at: expect.any(String),
      last_seen_at: expect.any(String),
    });
    // Newest first: the retyped number, then an addition the corpus itself brought after the warm-up (recorded, no alert).
    expect(res.body.changes).toEqual([
      {
        id: expect.any(String),
        kind: 'changed',
        added: [],
        removed: [],
        retyped: [{ path: 'issue.number', from: ['integer'], to: ['string'] }],
        event_id: expect.any(String),
        detected_at: expect.any(String),
        alerted: true,
        issue_id: expect.any(String),
        accepted_at: null,
      },
      expect.objectContaining({ kind: 'changed', added: ['changes.new_issue', 'changes.new_repository'], alerted: false, issue_id: null }),
    ]);
    const { data } = await gql(
      api.baseUrl,
      'query ($e: ID!, $id: ID!) { sourceSchemas(endpointId: $e, eventType: "issues") { data { id eventCount jsonSchema } } eventSchema(id: $id) { pendingChanges paths { path types required } changes { kind retyped { path from to } } } }',
      { e: sourceId, id },
      { token, projectId },
    );
    expect(data.sourceSchemas.data).toEqual([{ id, eventCount: 30, jsonSchema: list.body.data[0].json_schema }]);
    expect(data.eventSchema.pendingChanges).toBe(1);
    expect(data.eventSchema.paths).toContainEqual({ path: 'issue.number', types: { integer: 29, string: 1 }, required: true });
    expect(data.eventSchema.changes[0]).toEqual({ kind: 'changed', retyped: [{ path: 'issue.number', from: ['integer'], to: ['string'] }] });
  });

  it('accepting resolves the issue and makes the new shape the expected one; a viewer may read but not accept', async () => {
    const id = (await call('GET', `/v1/endpoints/${sourceId}/schemas?event_type=issues`)).body.data[0].id;
    expect((await call('POST', `/v1/event-schemas/${id}/accept`, undefined, viewerToken)).status).toBe(403);
    const res = await call('POST', `/v1/event-schemas/${id}/accept`);
    expect(res.status).toBe(200);
    expect(res.body.pending_changes).toBe(0);
    expect(res.body.changes[0].accepted_at).toEqual(expect.any(String));
    expect(res.body.paths.find((p: { path: string }) => p.path === 'issue.number').types).toEqual({ string: 1 });
    const issues = await call('GET', `/v1/issues?endpoint_id=${sourceId}`);
    expect(issues.body.data).toEqual([
      expect.objectContaining({ cause: 'schema_changed', state: 'resolved', destination: null, source: { id: sourceId, name: 'Codehost A', slug: expect.any(String) }, event_type: 'issues' }),
    ]);
    const retry = await call('POST', `/v1/issues/${issues.body.data[0].id}/retry`, {});
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe('issue_not_retryable');
  });

  it("sets a source's schema and silence alerts; an expected interval needs its seconds; the system source has none", async () => {
    let res = await call('PATCH', `/v1/endpoints/${sourceId}`, { expected_interval_seconds: 21600 });
    expect(res.body).toMatchObject({ silence_alerts: 'expected_interval', expected_interval_seconds: 21600, schema_alerts: 'changes' });
    res = await call('GET', `/v1/endpoints/${sourceId}/schemas?event_type=none`);
    expect(res.body.activity.expected_within_seconds).toBe(21600);
    res = await call('PATCH', `/v1/endpoints/${sourceId}`, { silence_alerts: 'off', schema_alerts: 'all' });
    expect(res.body).toMatchObject({ silence_alerts: 'off', expected_interval_seconds: 21600, schema_alerts: 'all' });
    res = await call('PATCH', `/v1/endpoints/${sourceId}`, { expected_interval_seconds: null, silence_alerts: 'expected_interval' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields).toEqual([{ field: 'expected_interval_seconds', message: expect.stringContaining('needs expected_interval_seconds') }]);
    res = await call('PATCH', `/v1/endpoints/${sourceId}`, { expected_interval_seconds: 5 });
    expect(res.status).toBe(400);
    res = await call('PATCH', `/v1/endpoints/${systemId}`, { silence_alerts: 'expected_interval' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('system_endpoint');
    const { data } = await gql(
      api.baseUrl,
      'mutation ($id: ID!) { updateEndpoint(id: $id, input: { silenceAlerts: "learned", schemaAlerts: "changes" }) { silenceAlerts schemaAlerts expectedIntervalSeconds } }',
      { id: sourceId },
      { token, projectId },
    );
    expect(data.updateEndpoint).toEqual({ silenceAlerts: 'learned', schemaAlerts: 'changes', expectedIntervalSeconds: 21600 });
    expect((await call('GET', `/v1/endpoints/${systemId}/schemas`)).body.data).toEqual([]);
  });
});
