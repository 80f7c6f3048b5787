import { OrganizationMember } from '../../src/organizations/organization-member.entity';
import { gql, rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { countQueries, insertDelivery } from '../support/delivery-fixtures';
import { createDestination, createEndpoint, createWorkspace, insertEvent, linkEndpoint, type Workspace } from '../support/factories';

describe('events and deliveries over REST and GraphQL', () => {
  let api: TestApi;
  let ws: Workspace;
  let token: string;
  let other: Workspace;
  let otherToken: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    api = await startTestApi();
    const em = api.container.orm.em.fork();
    ws = await createWorkspace(em);
    other = await createWorkspace(em);
    token = await tokenFor(api.container, ws.user.id);
    otherToken = await tokenFor(api.container, other.user.id);
    const { endpoint: a } = await createEndpoint(api.container, em, ws.project);
    const { endpoint: b } = await createEndpoint(api.container, em, ws.project);
    const dest = await createDestination(api.container, em, ws.project, { webhookUrl: 'http://127.0.0.1:9/hook' });
    const dest2 = await createDestination(api.container, em, ws.project, { webhookUrl: 'http://127.0.0.1:9/other' });
    await linkEndpoint(em, a, dest);
    Object.assign(ids, { endpointA: a.id, endpointB: b.id, dest: dest.id, dest2: dest2.id });
    ids.e1 = await insertEvent(api.container, a, { eventType: 'push', payload: { n: 1 }, headers: { 'x-event-type': 'push' } });
    ids.e2 = await insertEvent(api.container, a, { eventType: 'issue', payload: { n: 2 }, status: 'filtered' });
    ids.e3 = await insertEvent(api.container, b, { eventType: 'push', payload: { n: 3 } });
    ids.e4 = await insertEvent(api.container, a, { eventType: 'push', payload: { n: 4 } });
    // e1 is a day old.
    await api.container.orm.em.getConnection().execute(`update events set created_at = now() - interval '1 day' where id = ?`, [ids.e1]);
    const ok = await insertDelivery(api.container, { eventId: ids.e1, destinationId: dest.id, status: 'success', attempts: [{ status: 'failed', statusCode: 500 }, { status: 'success', statusCode: 200 }] });
    const dead = await insertDelivery(api.container, { eventId: ids.e4, destinationId: dest.id, status: 'failed', deadLettered: true, attempts: [{ status: 'failed', statusCode: 502 }] });
    const waiting = await insertDelivery(api.container, { eventId: ids.e4, destinationId: dest2.id, status: 'retrying', attempts: [{ status: 'retrying', statusCode: 503 }] });
    Object.assign(ids, { ok: ok.deliveryId, dead: dead.deliveryId, waiting: waiting.deliveryId, waitingAttempt: waiting.attemptIds[0] });
    const { endpoint: theirs } = await createEndpoint(api.container, em, other.project);
    ids.theirs = await insertEvent(api.container, theirs, { payload: { secret: 'theirs' } });
  });
  afterAll(() => api.close());

  const list = async (query: string) => {
    const res = await rest(api.baseUrl, 'GET', `/v1/events${query}`, { token });
    expect(res.status).toBe(200);
    return res.body.data.map((e: { id: string }) => e.id);
  };

  it('lists events newest first with filters and cursor pagination, without payloads', async () => {
    expect(await list('')).toEqual([ids.e4, ids.e3, ids.e2, ids.e1]);
    expect(await list(`?endpoint_id=${ids.endpointB}`)).toEqual([ids.e3]);
    expect(await list('?status=filtered')).toEqual([ids.e2]);
    expect(await list('?event_type=push')).toEqual([ids.e4, ids.e3, ids.e1]);
    expect(await list(`?destination_id=${ids.dest2}`)).toEqual([ids.e4]);
    const hourAgo = new Date(Date.now() - 3600_000).toISOString();
    expect(await list(`?created_before=${hourAgo}`)).toEqual([ids.e1]);
    expect(await list(`?created_after=${hourAgo}&event_type=push`)).toEqual([ids.e4, ids.e3]);

    const first = await rest(api.baseUrl, 'GET', '/v1/events?limit=3', { token });
    expect(first.body.data).toHaveLength(3);
    expect(first.body.data[0]).not.toHaveProperty('payload');
    expect(first.body.data[0]).toMatchObject({ id: ids.e4, endpoint_id: ids.endpointA, organization_id: ws.organization.id, status: 'received', event_type: 'push' });
    const second = await rest(api.baseUrl, 'GET', `/v1/events?limit=3&cursor=${first.body.next_cursor}`, { token });
    expect(second.body).toEqual({ data: [expect.objectContaining({ id: ids.e1 })], next_cursor: null });
  });

  it('gets one event with payload and headers; other projects’ events are 404; bad filters are 400 with the field', async () => {
    const res = await rest(api.baseUrl, 'GET', `/v1/events/${ids.e1}`, { token });
    expect(res.body).toMatchObject({ id: ids.e1, payload: { n: 1 }, headers: { 'x-event-type': 'push' }, idempotency_key: null, created_at: expect.any(String) });
    const cross = await rest(api.baseUrl, 'GET', `/v1/events/${ids.theirs}`, { token });
    expect(cross.status).toBe(404);
    expect(cross.body.error.code).toBe('not_found');
    expect((await rest(api.baseUrl, 'GET', `/v1/events/${ids.e1}`, { token: otherToken })).status).toBe(404);
    const bad = await rest(api.baseUrl, 'GET', '/v1/events?status=nope&created_after=yesterday', { token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(['created_after', 'status']);
    expect((await rest(api.baseUrl, 'GET', '/v1/events?cursor=garbage', { token })).body.error.code).toBe('invalid_cursor');
  });

  it('lists deliveries and attempts by event, destination and status, and the dead-letter queue', async () => {
    const byEvent = await rest(api.baseUrl, 'GET', `/v1/deliveries?event_id=${ids.e4}`, { token });
    expect(byEvent.body.data.map((d: { id: string }) => d.id)).toEqual([ids.waiting, ids.dead]);
    const byDest = await rest(api.baseUrl, 'GET', `/v1/attempts?destination_id=${ids.dest}&status=failed`, { token });
    expect(byDest.body.data).toHaveLength(2);
    expect(byDest.body.data.every((a: { status: string; destination_id: string }) => a.status === 'failed' && a.destination_id === ids.dest)).toBe(true);
    const ofEvent = await rest(api.baseUrl, 'GET', `/v1/attempts?event_id=${ids.e1}`, { token });
    expect(ofEvent.body.data.map((a: { attempt_number: number; delivery_id: string }) => [a.attempt_number, a.delivery_id])).toEqual([[2, ids.ok], [1, ids.ok]]);
    expect(ofEvent.body.data[0]).toMatchObject({ status_code: 200, response_body_truncated: false, payload_sent: { sent: true } });
    const dlq = await rest(api.baseUrl, 'GET', '/v1/dead-letters', { token });
    expect(dlq.body).toEqual({ data: [expect.objectContaining({ id: ids.dead, status: 'failed', dead_lettered_at: expect.any(String) })], next_cursor: null });
    expect((await rest(api.baseUrl, 'GET', '/v1/dead-letters', { token: otherToken })).body.data).toEqual([]);
  });

  it('serves nested events → deliveries → attempts in GraphQL with a query count that does not grow with the list', async () => {
    const query = `query($limit: Int!) { events(limit: $limit) { data { id payload endpoint { id } deliveries { id status destination { name } attempts { attemptNumber statusCode } } } nextCursor } }`;
    const res = await gql(api.baseUrl, query, { limit: 10 }, { token });
    expect(res.errors).toBeUndefined();
    const e1 = res.data.events.data.find((e: { id: string }) => e.id === ids.e1);
    expect(e1).toEqual({
      id: ids.e1,
      payload: { n: 1 },
      endpoint: { id: ids.endpointA },
      deliveries: [{ id: ids.ok, status: 'success', destination: { name: 'Test destination' }, attempts: [{ attemptNumber: 1, statusCode: 500 }, { attemptNumber: 2, statusCode: 200 }] }],
    });

    const one = await countQueries(api.container, () => gql(api.baseUrl, query, { limit: 1 }, { token }));
    const all = await countQueries(api.container, () => gql(api.baseUrl, query, { limit: 10 }, { token }));
    expect(one).toBeGreaterThanOrEqual(5); // auth, events, endpoints, deliveries, destinations, attempts: one query per level
    expect(all).toBe(one);
  });

  it('replays an event and cancels a waiting delivery; a viewer gets 403 naming the developer role', async () => {
    const replay = await rest(api.baseUrl, 'POST', `/v1/events/${ids.e1}/replay`, { token });
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual({ event_id: ids.e1, deliveries: [expect.objectContaining({ destination_id: ids.dest, status: 'queued', attempt_count: 0, replay_of_id: ids.ok })] });

    const canceled = await gql(api.baseUrl, 'mutation($id: ID!) { cancelDelivery(id: $id) { id status } }', { id: ids.waiting }, { token });
    expect(canceled.data.cancelDelivery).toEqual({ id: ids.waiting, status: 'canceled' });
    const again = await rest(api.baseUrl, 'POST', `/v1/deliveries/${ids.waiting}/cancel`, { token });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('delivery_not_cancelable');

    const em = api.container.orm.em.fork();
    const member = await em.findOneOrFail(OrganizationMember, { user: ws.user.id });
    member.role = 'viewer';
    await em.flush();
    try {
      const denied = await rest(api.baseUrl, 'POST', `/v1/dead-letters/${ids.dead}/replay`, { token });
      expect(denied.status).toBe(403);
      expect(denied.body.error).toMatchObject({ code: 'insufficient_role', details: { required_role: 'developer', role: 'viewer' } });
      expect((await rest(api.baseUrl, 'GET', '/v1/dead-letters', { token })).status).toBe(200);
    } finally {
      member.role = 'owner';
      await em.flush();
    }
    const replayed = await gql(api.baseUrl, 'mutation($ids: [ID!]!) { replayDeadLetters(deliveryIds: $ids) { replayOfId status } }', { ids: [ids.dead] }, { token });
    expect(replayed.data.replayDeadLetters).toEqual([{ replayOfId: ids.dead, status: 'queued' }]);
    expect((await rest(api.baseUrl, 'GET', '/v1/dead-letters', { token })).body.data).toEqual([]);
  });
});
