import { type ResourceEnv, startResourceEnv } from '../resources/resource-harness';

/** Issue 19 item 5 (optional): `relay trigger`'s service over REST too, with the same defaults and errors as `triggerEvent`. */
describe('POST /v1/events/trigger (the triggerEvent mutation over REST)', () => {
  let env: ResourceEnv;
  let slug: string;

  beforeAll(async () => {
    env = await startResourceEnv();
    const created = await env.call('POST', '/v1/endpoints', { body: { name: 'Shop', provider: 'payments_a', event_type_path: 'type' } });
    expect(created.status).toBe(201);
    slug = created.body.slug;
  });
  afterAll(() => env.close());

  it('sends the exact body through the source’s ingress, signed, as a new event; event_id sends a stored one again', async () => {
    const body = '{ "type": "order.paid", "amount": 12345678901234567890 }';
    const res = await env.call('POST', '/v1/events/trigger', { body: { source: slug, body, headers: { 'X-Trace': 't1' } } });
    expect(res.status).toBe(201);
    const event = await env.call('GET', `/v1/events/${res.body.event_id}`);
    expect(event.body).toMatchObject({ event_type: 'order.paid', status: 'received' });
    expect(event.body.headers).toMatchObject({ 'x-trace': 't1', 'x-hub-signature-256': expect.stringMatching(/^sha256=[0-9a-f]{64}$/) });

    const again = await env.call('POST', '/v1/events/trigger', { body: { event_id: res.body.event_id, event_type: 'order.refunded' } });
    expect(again.status).toBe(201);
    expect(again.body.event_id).not.toBe(res.body.event_id);
    const copy = await env.call('GET', `/v1/events/${again.body.event_id}`);
    expect(copy.body.headers['x-trace']).toBe('t1');
    expect(copy.body.headers['x-event-type']).toBe('order.refunded');

    // GraphQL answers the same service.
    const gql = await env.query('mutation ($i: TriggerEventInput!, $p: ID) { triggerEvent(input: $i, projectId: $p) { eventId } }', { i: { source: slug }, p: env.owner.project.id });
    expect(gql.errors).toBeUndefined();
    expect((await env.call('GET', `/v1/events/${gql.data.triggerEvent.eventId}`)).body.event_type).toBe('relay.trigger');
  });

  it('types its sample event with the type the sample names, on a source that reads no type from bodies', async () => {
    const plain = await env.call('POST', '/v1/endpoints', { body: { name: 'Plain', slug: `plain-${Date.now()}` } });
    expect(plain.status).toBe(201);
    const sample = await env.call('POST', '/v1/events/trigger', { body: { source: plain.body.slug } });
    expect(sample.status).toBe(201);
    const event = await env.call('GET', `/v1/events/${sample.body.event_id}`);
    expect(event.body.payload.type).toBe('relay.trigger');
    expect(event.body).toMatchObject({ event_type: 'relay.trigger' });
    expect(event.body.headers['x-event-type']).toBe('relay.trigger');

    const typed = await env.call('POST', '/v1/events/trigger', { body: { source: plain.body.slug, event_type: 'order.paid' } });
    expect((await env.call('GET', `/v1/events/${typed.body.event_id}`)).body.event_type).toBe('order.paid');
  });

  it('refuses bad input with a clear 4xx', async () => {
    const none = await env.call('POST', '/v1/events/trigger', { body: {} });
    expect(none.status).toBe(400);
    expect(none.body.error.message).toMatch(/give a source \(slug\) or an event_id/);
    expect((await env.call('POST', '/v1/events/trigger', { body: { source: 'no-such-source' } })).status).toBe(404);
    expect((await env.call('POST', '/v1/events/trigger', { body: { source: slug, body: 'not json' } })).status).toBe(400);
    expect((await env.call('POST', '/v1/events/trigger', { body: { source: slug }, token: env.tokens.viewer })).status).toBe(403);
  });
});
