import { uuidv7 } from '../../src/common/ids';
import type { WebhookEndpoint } from '../../src/endpoints/endpoint.entity';
import { OrganizationMember } from '../../src/organizations/organization-member.entity';
import { User } from '../../src/users/user.entity';
import { gql, rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { insertDelivery } from '../support/delivery-fixtures';
import { createDestination, createEndpoint, createWorkspace, insertEvent, type Workspace } from '../support/factories';

/** Issue 18.3: bulk retry with a count first, idempotent by key, with progress; force-retry; bulk cancel of a destination's pending deliveries. */
describe('bulk actions over REST and GraphQL', () => {
  let api: TestApi;
  let token: string;
  const ids: Record<string, string> = {};
  const failed: string[] = [];

  beforeAll(async () => {
    api = await startTestApi();
    const em = api.container.orm.em.fork();
    const ws = await createWorkspace(em);
    token = await tokenFor(api.container, ws.user.id);
    const { endpoint } = await createEndpoint(api.container, em, ws.project);
    const a = await createDestination(api.container, em, ws.project, { webhookUrl: 'http://127.0.0.1:9/a' });
    const b = await createDestination(api.container, em, ws.project, { webhookUrl: 'http://127.0.0.1:9/b' });
    Object.assign(ids, { a: a.id, b: b.id });
    for (const type of ['push', 'push', 'issue']) {
      const eventId = await insertEvent(api.container, endpoint, { eventType: type });
      failed.push((await insertDelivery(api.container, { eventId, destinationId: a.id, status: 'failed', deadLettered: true, attempts: [{ status: 'failed', statusCode: 500 }] })).deliveryId);
    }
    const okEvent = await insertEvent(api.container, endpoint, { eventType: 'push' });
    ids.ok = (await insertDelivery(api.container, { eventId: okEvent, destinationId: a.id, status: 'success', attempts: [{ status: 'success', statusCode: 200 }] })).deliveryId;
    const waitEvent = await insertEvent(api.container, endpoint, { eventType: 'push' });
    ids.waiting = (await insertDelivery(api.container, { eventId: waitEvent, destinationId: b.id, status: 'retrying', attempts: [{ status: 'retrying', statusCode: 503 }] })).deliveryId;
  });
  afterAll(() => api.close());

  const call = (method: string, path: string, body?: unknown) => rest(api.baseUrl, method, path, { token, body });
  const until = async (id: string) => {
    for (;;) {
      const res = await call('GET', `/v1/bulk-actions/${id}`);
      if (res.body.status === 'completed') return res.body;
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  it('counts first, retries every matching failed delivery once, and a second request with the same key starts nothing', async () => {
    const filter = { destination_id: ids.a };
    expect((await call('POST', '/v1/bulk-actions/preview', { kind: 'retry', filter })).body).toEqual({ count: 3, max: 10_000 });
    expect((await call('POST', '/v1/bulk-actions/preview', { kind: 'retry', filter: { ...filter, event_type_prefix: 'pu' } })).body.count).toBe(2);
    const gqlPreview = await gql(api.baseUrl, 'query($i: BulkPreviewInput!) { previewBulkAction(input: $i) { count } }', { i: { kind: 'retry', filter: { destinationId: ids.a } } }, { token });
    expect(gqlPreview.data.previewBulkAction.count).toBe(3);

    const [first, second] = await Promise.all([
      call('POST', '/v1/bulk-actions', { kind: 'retry', filter, idempotency_key: 'click-1' }),
      call('POST', '/v1/bulk-actions', { kind: 'retry', filter, idempotency_key: 'click-1' }),
    ]);
    expect(first.status).toBe(202);
    expect(second.body.id).toBe(first.body.id);
    expect(first.body).toMatchObject({ kind: 'retry', total: 3 });
    const done = await until(first.body.id);
    expect(done).toMatchObject({ status: 'completed', total: 3, done: 3, applied: 3 });
    const again = await call('POST', '/v1/bulk-actions', { kind: 'retry', filter, idempotency_key: 'click-1' });
    expect(again.body).toMatchObject({ id: first.body.id, applied: 3 });

    // One replay per dead letter, not two.
    const deliveries = await call('GET', `/v1/deliveries?destination_id=${ids.a}&limit=50`);
    const replays = deliveries.body.data.filter((d: { replay_of_id: string | null }) => d.replay_of_id && failed.includes(d.replay_of_id));
    expect(replays.map((d: { replay_of_id: string }) => d.replay_of_id).sort()).toEqual([...failed].sort());
    expect((await call('POST', '/v1/bulk-actions/preview', { kind: 'retry', filter })).body.count).toBe(0);

    const reused = await call('POST', '/v1/bulk-actions', { kind: 'retry', filter: { destination_id: ids.b }, idempotency_key: 'click-1' });
    expect(reused.status).toBe(409);
    expect(reused.body.error.code).toBe('idempotency_key_reused');
  });

  it('force-retries a successful delivery (REST and GraphQL)', async () => {
    const res = await call('POST', `/v1/deliveries/${ids.ok}/force-retry`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ destination_id: ids.a, replay_of_id: ids.ok });
    const viaGql = await gql(api.baseUrl, 'mutation($id: ID!) { forceRetryDelivery(id: $id) { replayOfId } }', { id: res.body.id }, { token });
    expect(viaGql.data.forceRetryDelivery.replayOfId).toBe(res.body.id);
  });

  it('cancels every pending delivery of a destination; a cancel needs a destination; bad input is 400 naming the field', async () => {
    expect((await call('POST', '/v1/bulk-actions/preview', { kind: 'cancel', filter: { destination_id: ids.b } })).body.count).toBe(1);
    const started = await gql(
      api.baseUrl,
      'mutation($i: BulkActionInput!) { startBulkAction(input: $i) { id total } }',
      { i: { kind: 'cancel', filter: { destinationId: ids.b }, idempotencyKey: 'cancel-b' } },
      { token },
    );
    expect(started.data.startBulkAction.total).toBe(1);
    expect(await until(started.data.startBulkAction.id)).toMatchObject({ applied: 1 });
    expect((await call('GET', `/v1/deliveries/${ids.waiting}`)).body.status).toBe('canceled');

    const noDest = await call('POST', '/v1/bulk-actions', { kind: 'cancel', filter: {}, idempotency_key: 'x' });
    expect(noDest.status).toBe(400);
    expect(noDest.body.error.details.fields[0].field).toBe('filter.destination_id');
    const bad = await call('POST', '/v1/bulk-actions/preview', { kind: 'explode', filter: { created_after: 'yesterday' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(['filter.created_after', 'kind']);
    expect((await call('GET', '/v1/bulk-actions/not-an-id')).status).toBe(400);
    expect((await call('GET', `/v1/bulk-actions/${ids.a}`)).status).toBe(404);
  });
});

/** A bulk action works with its creator's authority, checked before every batch, whoever's read resumes it. */
describe('bulk actions: the creator’s authority', () => {
  let api: TestApi;
  let ws: Workspace;
  let destinationId: string;
  let endpoint: WebhookEndpoint;
  const tokens: Record<'owner' | 'developer' | 'viewer', string> = { owner: '', developer: '', viewer: '' };
  let developer: User;

  beforeAll(async () => {
    api = await startTestApi();
    const em = api.container.orm.em.fork();
    ws = await createWorkspace(em);
    ({ endpoint } = await createEndpoint(api.container, em, ws.project));
    destinationId = (await createDestination(api.container, em, ws.project, { webhookUrl: 'http://127.0.0.1:9/a' })).id;
    developer = em.create(User, { email: `dev-${ws.organization.id}@example.test`, name: 'Dev' });
    const viewer = em.create(User, { email: `viewer-${ws.organization.id}@example.test`, name: 'Viewer' });
    em.create(OrganizationMember, { organization: ws.organization, user: developer, role: 'developer' });
    em.create(OrganizationMember, { organization: ws.organization, user: viewer, role: 'viewer' });
    await em.flush();
    tokens.owner = await tokenFor(api.container, ws.user.id);
    tokens.developer = await tokenFor(api.container, developer.id);
    tokens.viewer = await tokenFor(api.container, viewer.id);
  });
  afterAll(() => api.close());

  const failedDeliveries = async (n: number, destination = destinationId) => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const eventId = await insertEvent(api.container, endpoint, { eventType: 'push' });
      out.push((await insertDelivery(api.container, { eventId, destinationId: destination, status: 'failed', attempts: [{ status: 'failed', statusCode: 500 }] })).deliveryId);
    }
    return out;
  };

  /** A running action whose process went away a minute ago (a restart): the next read resumes it. */
  const staleAction = async (creator: { user?: string; apiKey?: string }, targets: string[]) => {
    const id = uuidv7();
    await api.container.orm.em.getConnection().execute(
      `insert into bulk_actions (id, project_id, kind, idempotency_key, filter, target_ids, status, created_by, created_by_api_key, updated_at)
       values (?, ?, 'retry', ?, '{}'::jsonb, ?::uuid[], 'running', ?, ?, now() - interval '1 minute')`,
      [id, ws.project.id, `stale-${id}`, `{${targets.join(',')}}`, creator.user ?? null, creator.apiKey ?? null],
    );
    return id;
  };

  /** Reads the action as `reader` until it is no longer running. */
  const settled = async (id: string, reader: string) => {
    for (;;) {
      const res = await rest(api.baseUrl, 'GET', `/v1/bulk-actions/${id}`, { token: reader });
      expect(res.status).toBe(200);
      if (res.body.status !== 'running') return res.body;
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const replaysOf = async (targets: string[]) =>
    (await api.container.orm.em.getConnection().execute<Array<{ n: number }>>('select count(*)::int as n from deliveries where replay_of_id = any(?::uuid[])', [`{${targets.join(',')}}`]))[0].n;

  it('a viewer’s read resumes an action with its creator’s authority: it completes as the developer who started it', async () => {
    const targets = await failedDeliveries(3);
    const id = await staleAction({ user: developer.id }, targets);
    expect(await settled(id, tokens.viewer)).toMatchObject({ status: 'completed', done: 3, applied: 3, stopped_reason: null });
    expect(await replaysOf(targets)).toBe(3);
  });

  it('an action whose creator lost the role stops with the reason, whoever reads it, and retries nothing', async () => {
    const targets = await failedDeliveries(3);
    const id = await staleAction({ user: developer.id }, targets);
    await api.container.orm.em.getConnection().execute(`update organization_members set role = 'viewer' where user_id = ?`, [developer.id]);
    try {
      const stopped = await settled(id, tokens.owner);
      expect(stopped).toMatchObject({ status: 'stopped', done: 0, applied: 0, stopped_reason: expect.stringMatching(/developer role/) });
      expect(await replaysOf(targets)).toBe(0);
      // A stopped action is not resumed by a later read.
      expect((await rest(api.baseUrl, 'GET', `/v1/bulk-actions/${id}`, { token: tokens.owner })).body.status).toBe('stopped');
      const viaGql = await gql(api.baseUrl, 'query($id: ID!) { bulkAction(id: $id) { status stoppedReason } }', { id }, { token: tokens.owner });
      expect(viaGql.data.bulkAction).toEqual({ status: 'stopped', stoppedReason: stopped.stopped_reason });
    } finally {
      await api.container.orm.em.getConnection().execute(`update organization_members set role = 'developer' where user_id = ?`, [developer.id]);
    }
  });

  it('an action started with an API key runs with that key, and stops once the key is revoked', async () => {
    const created = await rest(api.baseUrl, 'POST', '/v1/api-keys', { token: tokens.owner, body: { name: 'ci' } });
    expect(created.status).toBe(201);
    const own = (await createDestination(api.container, api.container.orm.em.fork(), ws.project, { webhookUrl: 'http://127.0.0.1:9/ci' })).id;
    const first = await failedDeliveries(2, own);
    const started = await rest(api.baseUrl, 'POST', '/v1/bulk-actions', { token: created.body.key, body: { kind: 'retry', filter: { destination_id: own }, idempotency_key: 'ci-1' } });
    expect(started.status).toBe(202);
    expect(await settled(started.body.id, created.body.key)).toMatchObject({ status: 'completed', applied: 2 });
    expect(await replaysOf(first)).toBe(2);

    const targets = await failedDeliveries(2);
    const id = await staleAction({ apiKey: created.body.id }, targets);
    expect((await rest(api.baseUrl, 'DELETE', `/v1/api-keys/${created.body.id}`, { token: tokens.owner })).body.revoked_at).toEqual(expect.any(String));
    expect(await settled(id, tokens.viewer)).toMatchObject({ status: 'stopped', stopped_reason: expect.stringMatching(/revoked/) });
    expect(await replaysOf(targets)).toBe(0);
  });
});

describe('bulk actions: bounded by RELAY_BULK_QUERY_TIMEOUT_MS', () => {
  let api: TestApi;
  afterAll(() => api?.close());

  it('a preview or start whose query runs past the timeout is a 400 bulk_too_broad, and the API goes on answering', async () => {
    api = await startTestApi({ RELAY_BULK_QUERY_TIMEOUT_MS: '1' });
    const em = api.container.orm.em.fork();
    const ws = await createWorkspace(em);
    const token = await tokenFor(api.container, ws.user.id);
    const { endpoint } = await createEndpoint(api.container, em, ws.project);
    const destination = await createDestination(api.container, em, ws.project, { webhookUrl: 'http://127.0.0.1:9/a' });
    // 50,000 failed deliveries: finding the current ones takes far longer than 1 ms.
    await em.getConnection().execute(
      `with e as (
         insert into events (id, endpoint_id, project_id, organization_id, payload, headers, status, dispatched_at)
         select gen_random_uuid(), ?, ?, ?, '{}'::json, '{}'::json, 'received', now() from generate_series(1, 50000) returning id)
       insert into deliveries (id, event_id, destination_id, endpoint_id, project_id, status, attempt_count)
       select gen_random_uuid(), e.id, ?, ?, ?, 'failed', 1 from e`,
      [endpoint.id, ws.project.id, ws.organization.id, destination.id, endpoint.id, ws.project.id],
    );
    for (const [path, body] of [
      ['/v1/bulk-actions/preview', { kind: 'retry', filter: {} }],
      ['/v1/bulk-actions', { kind: 'retry', filter: {}, idempotency_key: 'broad' }],
    ] as const) {
      const res = await rest(api.baseUrl, 'POST', path, { token, body });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'bulk_too_broad', message: expect.stringContaining('narrow the filter'), details: { timeout_ms: 1 } });
    }
    expect((await rest(api.baseUrl, 'GET', '/v1/deliveries?limit=1', { token })).status).toBe(200);
  });
});
