import { type ResourceEnv, startResourceEnv } from '../resources/resource-harness';

/** `/v1` bodies and GraphQL input objects take only the fields they define: others are a 400 naming them. */
describe('strict bodies', () => {
  let env: ResourceEnv;
  let destinationId: string;

  beforeAll(async () => {
    env = await startResourceEnv();
    const created = await env.call('POST', '/v1/destinations', { body: { name: 'Receiver', type: 'webhook', webhook_url: 'https://receiver.example.test/hook' } });
    expect(created.status).toBe(201);
    destinationId = created.body.id;
  });
  afterAll(() => env.close());

  it('REST: a read-only field (the destination’s circuit, its id) is a 400 naming it, and nothing changes', async () => {
    const res = await env.call('PATCH', `/v1/destinations/${destinationId}`, {
      body: { name: 'Renamed', circuit: { state: 'closed', consecutive_failures: 0 }, id: destinationId },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('circuit'),
      details: {
        in: 'body',
        fields: [
          { field: 'circuit', message: expect.stringMatching(/read-only/) },
          { field: 'id', message: expect.stringMatching(/read-only/) },
        ],
      },
    });
    expect((await env.call('GET', `/v1/destinations/${destinationId}`)).body.name).toBe('Receiver');
  });

  it('REST: an unknown field, top-level or nested, is a 400 naming its path, on create and update', async () => {
    const misspelled = await env.call('PATCH', `/v1/destinations/${destinationId}`, { body: { nmae: 'Renamed' } });
    expect(misspelled.status).toBe(400);
    expect(misspelled.body.error.details.fields).toEqual([{ field: 'nmae', message: expect.stringMatching(/not a field/) }]);
    const nested = await env.call('POST', '/v1/destinations', {
      body: { name: 'Nested', type: 'webhook', webhook_url: 'https://receiver.example.test/x', retry_policy: { max_attempts: 3, backoff: [1], jitter: true } },
    });
    expect(nested.status).toBe(400);
    expect(nested.body.error.details.fields).toEqual([{ field: 'retry_policy.jitter', message: expect.any(String) }]);
    expect((await env.call('GET', '/v1/destinations')).body.data.map((d: { name: string }) => d.name)).toEqual(['Receiver']);
  });

  it('REST: project_id in a project-scoped body picks the project, as X-Project-Id does', async () => {
    const res = await env.call('PATCH', `/v1/destinations/${destinationId}`, { projectId: '', body: { project_id: env.owner.project.id, name: 'Kept' } });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('Kept');
  });

  it('GraphQL refuses the same fields: the input types do not have them, and a field one operation ignores is refused too', async () => {
    const circuit = await env.query('mutation($id: ID!) { updateDestination(id: $id, input: { name: "x", circuit: "closed" }) { id } }', { id: destinationId });
    expect(circuit.status).toBe(400);
    expect(circuit.errors?.[0]).toMatchObject({ message: expect.stringContaining('"circuit"'), extensions: { status: 400 } });
    // The input type is shared by create and update: `type` exists in it but an update cannot change it.
    const type = await env.query('mutation($id: ID!) { updateDestination(id: $id, input: { type: "chat_a" }) { id } }', { id: destinationId });
    expect(type.errors?.[0]).toMatchObject({ extensions: { code: 'invalid_input', status: 400, details: { fields: [{ field: 'type' }] } } });
  });
});
