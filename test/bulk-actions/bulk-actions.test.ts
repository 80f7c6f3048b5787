import { gql, rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { insertDelivery } from '../support/delivery-fixtures';
import { createDestination, createEndpoint, createWorkspace, insertEvent } from '../support/factories';

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
