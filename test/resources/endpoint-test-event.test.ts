import { type ResourceEnv, startResourceEnv } from './resource-harness';

describe('the endpoint Test button: POST /v1/endpoints/{id}/test and sendTestEvent', () => {
  let env: ResourceEnv;
  let endpointId: string;

  beforeAll(async () => {
    env = await startResourceEnv();
    // A provider with its own scheme: the test event still authenticates (X-Hub-Signature-256 is accepted by every endpoint).
    const created = await env.call('POST', '/v1/endpoints', { body: { name: 'Payments', provider: 'payments_a', event_type_path: 'type' } });
    expect(created.status).toBe(201);
    endpointId = created.body.id;
  });
  afterAll(() => env.close());

  it('stores a signed sample event through ingress (REST) and returns its id', async () => {
    const res = await env.call('POST', `/v1/endpoints/${endpointId}/test`);
    expect(res.status).toBe(201);
    const event = await env.call('GET', `/v1/events/${res.body.event_id}`);
    expect(event.status).toBe(200);
    expect(event.body).toMatchObject({ endpoint_id: endpointId, event_type: 'relay.test', status: 'received', payload: { type: 'relay.test' } });
    expect(event.body.headers).toMatchObject({ 'x-relay-test': '1', 'x-hub-signature-256': expect.stringMatching(/^sha256=[0-9a-f]{64}$/) });
  });

  it('does the same over GraphQL, one new event per press', async () => {
    const send = () => env.query('mutation ($id: ID!, $p: ID) { sendTestEvent(endpointId: $id, projectId: $p) { eventId } }', { id: endpointId, p: env.owner.project.id });
    const [a, b] = [await send(), await send()];
    expect(a.errors).toBeUndefined();
    expect(a.data.sendTestEvent.eventId).not.toBe(b.data.sendTestEvent.eventId);
    const events = await env.call('GET', `/v1/events?endpoint_id=${endpointId}`);
    expect(events.body.data.map((e: { id: string }) => e.id)).toEqual(expect.arrayContaining([a.data.sendTestEvent.eventId, b.data.sendTestEvent.eventId]));
  });

  it('has the type relay.test on an endpoint with no typing of its own (not an empty type)', async () => {
    const plain = await env.call('POST', '/v1/endpoints', { body: { name: 'Plain' } });
    const res = await env.call('POST', `/v1/endpoints/${plain.body.id}/test`);
    expect((await env.call('GET', `/v1/events/${res.body.event_id}`)).body.event_type).toBe('relay.test');
  });

  it('is a write: a viewer gets 403, another organization 404', async () => {
    expect((await env.call('POST', `/v1/endpoints/${endpointId}/test`, { token: env.tokens.viewer })).status).toBe(403);
    const stranger = await env.call('POST', `/v1/endpoints/${endpointId}/test`, { token: env.tokens.stranger, projectId: env.stranger.project.id });
    expect(stranger.status).toBe(404);
  });

  it('refuses an inactive endpoint with 409 endpoint_inactive', async () => {
    expect((await env.call('PATCH', `/v1/endpoints/${endpointId}`, { body: { is_active: false } })).status).toBe(200);
    const res = await env.call('POST', `/v1/endpoints/${endpointId}/test`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('endpoint_inactive');
  });
});
