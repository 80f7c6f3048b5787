import type { Knex } from '@mikro-orm/postgresql';
import { uuidv7 } from '../../src/common/ids';
import type { DeliveryStatus } from '../../src/common/types';
import type { WebhookEndpoint } from '../../src/endpoints/endpoint.entity';
import { OrganizationMember } from '../../src/organizations/organization-member.entity';
import { gql, rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { createDestination, createEndpoint, createWorkspace, type Workspace } from '../support/factories';

/**
 * GET /v1/metrics and the projectMetrics query over real rows whose ids and
 * created_at are placed in time (UUIDv7 ids carry their time, as in production).
 */
describe('project metrics', () => {
  let api: TestApi;
  let knex: Knex;
  let ws: Workspace;
  let token: string;
  let viewerToken: string;
  const ids: Record<string, string> = {};
  // Second 1 of a minute, so the attempts placed a few ms apart share its bucket.
  const recent = new Date(Math.floor((Date.now() - 5 * 60_000) / 60_000) * 60_000 + 1000);
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
  const minuteOf = (d: Date) => new Date(Math.floor(d.getTime() / 60_000) * 60_000).toISOString();

  async function eventAt(endpoint: WebhookEndpoint, at: Date, status: 'received' | 'filtered' = 'received'): Promise<string> {
    const id = uuidv7(at.getTime());
    await knex.raw(
      `insert into events (id, endpoint_id, project_id, organization_id, payload, headers, status, dispatched_at, created_at)
       select ?, ep.id, ep.project_id, p.organization_id, '{}', '{}', ?, now(), ?
         from webhook_endpoints ep join projects p on p.id = ep.project_id where ep.id = ?`,
      [id, status, at, endpoint.id],
    );
    return id;
  }

  async function deliveryAt(
    eventId: string,
    destinationId: string,
    at: Date,
    attempts: Array<{ status: DeliveryStatus; latencyMs: number }>,
    extra: { deadLettered?: boolean; replayOfId?: string } = {},
  ): Promise<string> {
    const id = uuidv7(at.getTime());
    await knex.raw(
      `insert into deliveries (id, event_id, destination_id, endpoint_id, project_id, status, attempt_count, dead_lettered_at, replay_of_id, workflow_started_at, created_at)
       select ?, e.id, ?, e.endpoint_id, e.project_id, ?, ?, ?, ?, now(), ? from events e where e.id = ?`,
      [id, destinationId, attempts.at(-1)?.status ?? 'queued', attempts.length, extra.deadLettered ? at : null, extra.replayOfId ?? null, at, eventId],
    );
    for (const [i, a] of attempts.entries()) {
      await knex.raw(
        `insert into delivery_attempts (id, delivery_id, event_id, destination_id, attempt_number, status, latency_ms, created_at)
         values (?, ?, ?, ?, ?, ?, ?, ?)`,
        [uuidv7(at.getTime() + i), id, eventId, destinationId, i + 1, a.status, a.latencyMs, new Date(at.getTime() + i)],
      );
    }
    return id;
  }

  beforeAll(async () => {
    api = await startTestApi();
    knex = api.container.orm.em.getConnection().getKnex();
    const em = api.container.orm.em.fork();
    ws = await createWorkspace(em);
    const other = await createWorkspace(em);
    const viewer = await createWorkspace(em);
    em.create(OrganizationMember, { organization: ws.organization, user: viewer.user, role: 'viewer' });
    await em.flush();
    token = await tokenFor(api.container, ws.user.id);
    viewerToken = await tokenFor(api.container, viewer.user.id);

    const { endpoint: a } = await createEndpoint(api.container, em, ws.project);
    const { endpoint: b } = await createEndpoint(api.container, em, ws.project);
    const { endpoint: theirs } = await createEndpoint(api.container, em, other.project);
    const alpha = await createDestination(api.container, em, ws.project, { name: 'alpha', webhookUrl: 'http://127.0.0.1:9/a' });
    const beta = await createDestination(api.container, em, ws.project, { name: 'beta', webhookUrl: 'http://127.0.0.1:9/b' });
    const theirDest = await createDestination(api.container, em, other.project, { name: 'theirs', webhookUrl: 'http://127.0.0.1:9/t' });
    Object.assign(ids, { a: a.id, b: b.id, theirs: theirs.id, alpha: alpha.id, beta: beta.id });

    const a1 = await eventAt(a, recent);
    const a2 = await eventAt(a, recent);
    await eventAt(a, recent, 'filtered');
    const b1 = await eventAt(b, recent);
    const old = await eventAt(a, twoHoursAgo);
    const foreign = await eventAt(theirs, recent);

    // a1 → alpha: a retry, then success. a2 → beta: fails for good (dead letter). b1 → alpha: success.
    await deliveryAt(a1, alpha.id, recent, [{ status: 'retrying', latencyMs: 100 }, { status: 'success', latencyMs: 300 }]);
    await deliveryAt(a2, beta.id, recent, [{ status: 'failed', latencyMs: 1000 }], { deadLettered: true });
    await deliveryAt(b1, alpha.id, recent, [{ status: 'success', latencyMs: 200 }]);
    // Two hours ago: a dead letter that was replayed since (so no longer in the queue).
    const replayed = await deliveryAt(old, beta.id, twoHoursAgo, [{ status: 'failed', latencyMs: 5000 }], { deadLettered: true });
    await deliveryAt(old, beta.id, twoHoursAgo, [{ status: 'success', latencyMs: 50 }], { replayOfId: replayed });
    // Another project's rows never count.
    await deliveryAt(foreign, theirDest.id, recent, [{ status: 'failed', latencyMs: 9 }], { deadLettered: true });
  });
  afterAll(() => api?.close());

  const metrics = async (query: string, as = token) => {
    const res = await rest(api.baseUrl, 'GET', `/v1/metrics${query}`, { token: as });
    expect(res.status).toBe(200);
    return res.body;
  };

  it('counts the last hour per minute bucket: events, outcomes, success rate, latency per destination, dead letters', async () => {
    const m = await metrics('?range=hour');
    expect(m).toMatchObject({ range: 'hour', endpoint_id: null, bucket_seconds: 60 });
    expect(m.buckets).toHaveLength(60);
    expect(new Date(m.to).getTime() - new Date(m.from).getTime()).toBe(3600_000);
    const bucket = m.buckets.find((b: { start: string }) => b.start === minuteOf(recent));
    expect(bucket).toEqual({
      start: minuteOf(recent),
      events_received: 4,
      events_filtered: 1,
      deliveries_succeeded: 2,
      deliveries_failed: 1,
      deliveries_retrying: 1,
    });
    expect(m.totals).toEqual({ events_received: 4, events_filtered: 1, deliveries_succeeded: 2, deliveries_failed: 1, deliveries_retrying: 1, success_rate: 2 / 3 });
    expect(m.latency).toEqual([
      // percentile_cont over 100, 200, 300 ms.
      { destination_id: ids.alpha, destination_name: 'alpha', attempts: 3, p50_ms: 200, p95_ms: 290 },
      { destination_id: ids.beta, destination_name: 'beta', attempts: 1, p50_ms: 1000, p95_ms: 1000 },
    ]);
    expect(m.dead_letters).toBe(1);
    const others = m.buckets.filter((b: { start: string }) => b.start !== minuteOf(recent));
    expect(others.every((b: Record<string, unknown>) => b.events_received === 0 && b.deliveries_succeeded === 0)).toBe(true);
  });

  it('a day is 96 quarter-hour buckets and includes older rows; a week is 168 hours', async () => {
    const day = await metrics('?range=day');
    expect(day.bucket_seconds).toBe(900);
    expect(day.buckets).toHaveLength(96);
    expect(day.buckets.every((b: { start: string }) => new Date(b.start).getTime() % 900_000 === 0)).toBe(true);
    expect(day.totals).toMatchObject({ events_received: 5, deliveries_succeeded: 3, deliveries_failed: 2, success_rate: 3 / 5 });
    expect(day.latency.find((l: { destination_name: string }) => l.destination_name === 'beta').attempts).toBe(3);
    const week = await metrics('?range=week');
    expect(week).toMatchObject({ bucket_seconds: 3600, totals: { events_received: 5 } });
    expect(week.buckets).toHaveLength(168);
  });

  it('narrows to one endpoint', async () => {
    const m = await metrics(`?range=hour&endpoint_id=${ids.a}`);
    expect(m.endpoint_id).toBe(ids.a);
    expect(m.totals).toEqual({ events_received: 3, events_filtered: 1, deliveries_succeeded: 1, deliveries_failed: 1, deliveries_retrying: 1, success_rate: 0.5 });
    expect(m.latency.map((l: { destination_name: string; p50_ms: number }) => [l.destination_name, l.p50_ms])).toEqual([['alpha', 200], ['beta', 1000]]);
    expect(m.dead_letters).toBe(1);
    const b = await metrics(`?endpoint_id=${ids.b}`);
    expect(b).toMatchObject({ range: 'hour', totals: { events_received: 1, deliveries_succeeded: 1, success_rate: 1 }, dead_letters: 0 });
  });

  it('an empty project has zero buckets and no success rate; viewers may read', async () => {
    const em = api.container.orm.em.fork();
    const empty = await createWorkspace(em);
    const m = await metrics('?range=hour', await tokenFor(api.container, empty.user.id));
    expect(m.totals).toEqual({ events_received: 0, events_filtered: 0, deliveries_succeeded: 0, deliveries_failed: 0, deliveries_retrying: 0, success_rate: null });
    expect(m.latency).toEqual([]);
    expect(m.dead_letters).toBe(0);
    const asViewer = await rest(api.baseUrl, 'GET', '/v1/metrics', { token: viewerToken, projectId: ws.project.id });
    expect(asViewer.body.totals.events_received).toBe(4);
  });

  it('refuses bad input with the field, and another project’s endpoint is 404', async () => {
    const bad = await rest(api.baseUrl, 'GET', '/v1/metrics?range=month&endpoint_id=nope', { token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(['endpoint_id', 'range']);
    const foreign = await rest(api.baseUrl, 'GET', `/v1/metrics?endpoint_id=${ids.theirs}`, { token });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
    expect((await rest(api.baseUrl, 'GET', '/v1/metrics')).status).toBe(401);
  });

  it('GraphQL projectMetrics answers the same numbers', async () => {
    const res = await gql(
      api.baseUrl,
      `query ($e: ID) { projectMetrics(range: HOUR, endpointId: $e) {
         range endpointId bucketSeconds from to deadLetters
         buckets { start eventsReceived eventsFiltered deliveriesSucceeded deliveriesFailed deliveriesRetrying }
         totals { eventsReceived deliveriesSucceeded deliveriesFailed successRate }
         latency { destinationId destinationName attempts p50Ms p95Ms } } }`,
      { e: ids.a },
      { token },
    );
    expect(res.errors).toBeUndefined();
    const m = res.data.projectMetrics;
    expect(m).toMatchObject({ range: 'HOUR', endpointId: ids.a, bucketSeconds: 60, deadLetters: 1 });
    expect(m.totals).toEqual({ eventsReceived: 3, deliveriesSucceeded: 1, deliveriesFailed: 1, successRate: 0.5 });
    expect(m.buckets.find((b: { start: string }) => b.start === minuteOf(recent))).toMatchObject({ eventsReceived: 3, eventsFiltered: 1, deliveriesRetrying: 1 });
    expect(m.latency[0]).toEqual({ destinationId: ids.alpha, destinationName: 'alpha', attempts: 2, p50Ms: 200, p95Ms: 290 });
    const foreign = await gql(api.baseUrl, `{ projectMetrics(endpointId: "${ids.theirs}") { deadLetters } }`, {}, { token });
    expect(foreign.errors?.[0].extensions?.code).toBe('not_found');
  });
});
