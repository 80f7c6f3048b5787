import { gql, rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { insertDelivery } from '../support/delivery-fixtures';
import { createDestination, createEndpoint, createWorkspace, insertEvent } from '../support/factories';

/** Issue 18.4: destination and endpoint health over 24 h, the same in REST and GraphQL. */
describe('destination and endpoint health', () => {
  let api: TestApi;
  let token: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    api = await startTestApi();
    const em = api.container.orm.em.fork();
    const ws = await createWorkspace(em);
    token = await tokenFor(api.container, ws.user.id);
    const { endpoint } = await createEndpoint(api.container, em, ws.project);
    const { endpoint: quiet } = await createEndpoint(api.container, em, ws.project);
    const flaky = await createDestination(api.container, em, ws.project, { webhookUrl: 'http://127.0.0.1:9/a' });
    const cli = await createDestination(api.container, em, ws.project, { type: 'cli', name: 'cli' });
    Object.assign(ids, { endpoint: endpoint.id, quiet: quiet.id, flaky: flaky.id, cli: cli.id });
    const ev = () => insertEvent(api.container, endpoint);
    await insertDelivery(api.container, { eventId: await ev(), destinationId: flaky.id, status: 'success', attempts: [{ status: 'success', statusCode: 200 }] });
    await insertDelivery(api.container, { eventId: await ev(), destinationId: flaky.id, status: 'success', attempts: [{ status: 'success', statusCode: 200 }] });
    await insertDelivery(api.container, { eventId: await ev(), destinationId: flaky.id, status: 'failed', attempts: [{ status: 'failed', statusCode: 500 }] });
    await insertDelivery(api.container, { eventId: await ev(), destinationId: flaky.id, status: 'retrying', attempts: [{ status: 'retrying', error: 'connect ECONNREFUSED 127.0.0.1:9' }] });
    const knex = api.container.orm.em.getConnection().getKnex();
    // The two failures happened after the successes; the first of them is when it started failing.
    await knex.raw(`update delivery_attempts set created_at = now() - interval '10 minutes' where status = 'success'`);
    ids.firstFailure = new Date((await knex.raw(`select created_at from delivery_attempts where status_code = 500`)).rows[0].created_at).toISOString();
    await knex.raw(`insert into cli_sessions (id, destination_id, instance_id) values (gen_random_uuid(), ?, 'test')`, [cli.id]);
  });
  afterAll(() => api.close());

  it('reports success rate, p95, last error, failing since and CLI presence (REST)', async () => {
    const flaky = await rest(api.baseUrl, 'GET', `/v1/destinations/${ids.flaky}/health`, { token });
    expect(flaky.body).toEqual({
      attempts_24h: 4,
      success_rate_24h: 0.5,
      p95_latency_ms_24h: 12,
      last_error: 'connect ECONNREFUSED 127.0.0.1:9',
      last_error_at: expect.any(String),
      failing_since: ids.firstFailure,
      cli_online: null,
    });
    expect((await rest(api.baseUrl, 'GET', `/v1/destinations/${ids.cli}/health`, { token })).body).toMatchObject({ attempts_24h: 0, success_rate_24h: null, cli_online: true });
    expect((await rest(api.baseUrl, 'GET', `/v1/endpoints/${ids.endpoint}/health`, { token })).body).toMatchObject({ attempts_24h: 4, success_rate_24h: 0.5 });
    expect((await rest(api.baseUrl, 'GET', `/v1/endpoints/${ids.quiet}/health`, { token })).body).toMatchObject({ attempts_24h: 0, failing_since: null, last_error: null });
    expect((await rest(api.baseUrl, 'GET', `/v1/endpoints/${ids.flaky}/health`, { token })).status).toBe(404);
  });

  it('is a field of Destination and Endpoint in GraphQL', async () => {
    const res = await gql(api.baseUrl, '{ destinations { data { id health { successRate24h cliOnline failingSince } } } endpoints { data { id health { attempts24h } } } }', {}, { token });
    expect(res.errors).toBeUndefined();
    const byId = Object.fromEntries(res.data.destinations.data.map((d: { id: string; health: unknown }) => [d.id, d.health]));
    expect(byId[ids.flaky]).toEqual({ successRate24h: 0.5, cliOnline: null, failingSince: ids.firstFailure });
    expect(byId[ids.cli]).toMatchObject({ cliOnline: true });
    expect(res.data.endpoints.data.find((e: { id: string }) => e.id === ids.endpoint).health.attempts24h).toBe(4);
  });
});
