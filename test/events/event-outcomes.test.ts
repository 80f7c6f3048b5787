import { deliveryOutcome, eventOutcome, type DeliveryStatusName } from '../../packages/cli/src/shared/outcomes';
import { gql, rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { insertDelivery } from '../support/delivery-fixtures';
import { createDestination, createEndpoint, createWorkspace, insertEvent } from '../support/factories';

/**
 * Issue 18.1: each listed event carries its deliveries' outcome (over the current delivery
 * per destination: a replay takes over) and its last response code; the list filters by
 * outcome, response class and event-type prefix, the same in REST and GraphQL.
 * Issue 27.6: the response code shown is that of the delivery the outcome comes
 * from, with its destination; the SQL agrees with the shared eventOutcome().
 */
describe('events list: delivery outcomes and their filters', () => {
  let api: TestApi;
  let token: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    api = await startTestApi();
    const em = api.container.orm.em.fork();
    const ws = await createWorkspace(em);
    token = await tokenFor(api.container, ws.user.id);
    const { endpoint } = await createEndpoint(api.container, em, ws.project);
    const a = await createDestination(api.container, em, ws.project, { name: 'a', webhookUrl: 'http://127.0.0.1:9/a' });
    const b = await createDestination(api.container, em, ws.project, { name: 'b', webhookUrl: 'http://127.0.0.1:9/b' });
    const ev = (eventType: string, status?: 'filtered') => insertEvent(api.container, endpoint, { eventType, status });
    ids.delivered = await ev('push.created');
    await insertDelivery(api.container, { eventId: ids.delivered, destinationId: a.id, status: 'success', attempts: [{ status: 'failed', statusCode: 500 }, { status: 'success', statusCode: 201 }] });
    await insertDelivery(api.container, { eventId: ids.delivered, destinationId: b.id, status: 'success', attempts: [{ status: 'success', statusCode: 204 }] });
    // Dead-lettered on a, then replayed on a with success: delivered now.
    ids.replayed = await ev('push.deleted');
    const old = await insertDelivery(api.container, { eventId: ids.replayed, destinationId: a.id, status: 'failed', deadLettered: true, attempts: [{ status: 'failed', statusCode: 502 }] });
    await insertDelivery(api.container, { eventId: ids.replayed, destinationId: a.id, status: 'success', replayOfId: old.deliveryId, attempts: [{ status: 'success', statusCode: 200 }] });
    // One destination delivered, the other dead-lettered: the worst wins.
    ids.dead = await ev('issue.opened');
    await insertDelivery(api.container, { eventId: ids.dead, destinationId: a.id, status: 'success', attempts: [{ status: 'success', statusCode: 200 }] });
    await insertDelivery(api.container, { eventId: ids.dead, destinationId: b.id, status: 'failed', deadLettered: true, attempts: [{ status: 'failed', statusCode: 404 }] });
    // Dead-lettered on b, and a's 200 came after it: the row shows b's 404, not a's later 200.
    ids.deadFirst = await ev('issue.closed');
    await insertDelivery(api.container, { eventId: ids.deadFirst, destinationId: b.id, status: 'failed', deadLettered: true, attempts: [{ status: 'failed', statusCode: 404 }] });
    await insertDelivery(api.container, { eventId: ids.deadFirst, destinationId: a.id, status: 'success', attempts: [{ status: 'success', statusCode: 200 }] });
    ids.retrying = await ev('pushy');
    await insertDelivery(api.container, { eventId: ids.retrying, destinationId: a.id, status: 'retrying', attempts: [{ status: 'retrying', error: 'connect ECONNREFUSED' }] });
    ids.filtered = await ev('push.created', 'filtered');
    ids.nowhere = await ev('ping');
    ids.pending = await ev('ping');
    ids.quarantined = await ev('ping');
    await api.container.orm.em.getConnection().execute(`update events set dispatched_at = now() where id <> ?`, [ids.pending]);
    await api.container.orm.em.getConnection().execute(`update events set quarantined_at = now(), quarantine_reason = 'stack depth limit exceeded (54001)' where id = ?`, [ids.quarantined]);
  });
  afterAll(() => api.close());

  const list = async (query: string) => {
    const res = await rest(api.baseUrl, 'GET', `/v1/events${query}`, { token });
    expect(res.status).toBe(200);
    return res.body.data as Array<{ id: string; outcome: string; last_status_code: number | null; outcome_destination: { name: string } | null; destination_count: number }>;
  };

  it("summarises each event's deliveries with the response code of the delivery the outcome comes from, and whose it is", async () => {
    const rows = await list('');
    const byId = new Map(rows.map((r) => [r.id, [r.outcome, r.last_status_code, r.outcome_destination?.name ?? null, r.destination_count]]));
    expect(Object.fromEntries(Object.entries(ids).map(([name, id]) => [name, byId.get(id)]))).toEqual({
      // Equals: the newest delivery's.
      delivered: ['delivered', 204, 'b', 2],
      replayed: ['delivered', 200, 'a', 1],
      dead: ['dead_lettered', 404, 'b', 2],
      deadFirst: ['dead_lettered', 404, 'b', 2],
      retrying: ['retrying', null, 'a', 1],
      filtered: ['filtered', null, null, 0],
      nowhere: ['no_destination', null, null, 0],
      pending: ['pending', null, null, 0],
      quarantined: ['quarantined', null, null, 0],
    });
    const one = await rest(api.baseUrl, 'GET', `/v1/events/${ids.deadFirst}`, { token });
    expect(one.body).toMatchObject({ id: ids.deadFirst, outcome: 'dead_lettered', last_status_code: 404, outcome_destination: { name: 'b' }, payload: { hello: 'world' }, quarantined_at: null, quarantine_reason: null });
    const set = await rest(api.baseUrl, 'GET', `/v1/events/${ids.quarantined}`, { token });
    expect(set.body).toMatchObject({ outcome: 'quarantined', quarantine_reason: 'stack depth limit exceeded (54001)', quarantined_at: expect.any(String) });
    const viaGql = await gql(api.baseUrl, 'query($id: ID!) { event(id: $id) { outcome quarantinedAt quarantineReason } }', { id: ids.quarantined }, { token });
    expect(viaGql.data.event).toMatchObject({ outcome: 'quarantined', quarantineReason: 'stack depth limit exceeded (54001)' });
  });

  it('agrees with eventOutcome() of packages/cli/src/shared/outcomes.ts over the same deliveries (the dashboard and the CLI use that)', async () => {
    for (const [name, id] of Object.entries(ids)) {
      const event = await rest(api.baseUrl, 'GET', `/v1/events/${id}`, { token });
      const deliveries = await rest(api.baseUrl, 'GET', `/v1/deliveries?event_id=${id}`, { token });
      const rows = deliveries.body.data as Array<{ id: string; destination_id: string; status: DeliveryStatusName; dead_lettered_at: string | null }>;
      // Current: per destination, the newest delivery (ids are time-ordered).
      const current = new Map<string, (typeof rows)[number]>();
      for (const d of [...rows].sort((x, y) => x.id.localeCompare(y.id))) current.set(d.destination_id, d);
      const [row] = await api.container.orm.em.getConnection().execute<Array<{ dispatched: boolean }>>('select dispatched_at is not null as dispatched from events where id = ?', [id]);
      const expected = eventOutcome({
        filtered: event.body.status === 'filtered',
        quarantined: event.body.quarantined_at !== null,
        dispatched: row.dispatched,
        deliveries: [...current.values()].map((d) => deliveryOutcome(d.status, d.dead_lettered_at !== null)),
      });
      expect([name, event.body.outcome]).toEqual([name, expected]);
    }
  });

  it('filters by outcome, response class and event-type prefix, alone and combined', async () => {
    const idsOf = async (q: string) => (await list(q)).map((r) => r.id);
    expect(await idsOf('?outcome=delivered')).toEqual([ids.replayed, ids.delivered]);
    expect(await idsOf('?outcome=dead_lettered')).toEqual([ids.deadFirst, ids.dead]);
    expect(await idsOf('?outcome=retrying')).toEqual([ids.retrying]);
    expect(await idsOf('?outcome=no_destination')).toEqual([ids.nowhere]);
    expect(await idsOf('?outcome=pending')).toEqual([ids.pending]);
    expect(await idsOf('?outcome=quarantined')).toEqual([ids.quarantined]);
    expect(await idsOf('?outcome=filtered')).toEqual([ids.filtered]);
    // The class of each current delivery's last attempt: the replaced 502 no longer counts.
    expect(await idsOf('?response_class=5xx')).toEqual([]);
    expect(await idsOf('?response_class=4xx')).toEqual([ids.deadFirst, ids.dead]);
    expect(await idsOf('?response_class=2xx')).toEqual([ids.deadFirst, ids.dead, ids.replayed, ids.delivered]);
    expect(await idsOf('?response_class=none')).toEqual([ids.retrying]);
    expect(await idsOf('?event_type_prefix=push.')).toEqual([ids.filtered, ids.replayed, ids.delivered]);
    expect(await idsOf('?event_type_prefix=push')).toEqual([ids.filtered, ids.retrying, ids.replayed, ids.delivered]);
    // LIKE wildcards in the prefix are literal.
    expect(await idsOf('?event_type_prefix=push_')).toEqual([]);
    expect(await idsOf('?event_type_prefix=%25')).toEqual([]);
    expect(await idsOf('?event_type_prefix=push.&outcome=delivered&response_class=2xx')).toEqual([ids.replayed, ids.delivered]);
  });

  it('GraphQL exposes the same filters and fields; bad values are 400 naming the field', async () => {
    const res = await gql(
      api.baseUrl,
      'query($o: String, $c: String, $p: String) { events(outcome: $o, responseClass: $c, eventTypePrefix: $p) { data { id outcome lastStatusCode outcomeDestination { name } destinationCount } } }',
      { o: 'dead_lettered', c: '4xx', p: 'issue.o' },
      { token },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.events.data).toEqual([{ id: ids.dead, outcome: 'dead_lettered', lastStatusCode: 404, outcomeDestination: { name: 'b' }, destinationCount: 2 }]);
    const bad = await rest(api.baseUrl, 'GET', '/v1/events?outcome=sad&response_class=6xx', { token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(['outcome', 'response_class']);
    const badGql = await gql(api.baseUrl, '{ events(outcome: "sad") { data { id } } }', {}, { token });
    expect(badGql.errors?.[0]?.extensions?.code).toBe('invalid_input');
  });
});
