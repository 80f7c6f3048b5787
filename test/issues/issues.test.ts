import { DeliveryDispatcher } from '../../src/deliveries/delivery-dispatcher';
import { OperationalEventPublisher } from '../../src/operational-events/operational-event-publisher';
import { OrganizationMember } from '../../src/organizations/organization-member.entity';
import { User } from '../../src/users/user.entity';
import { closeHttpAgents } from '../../src/sending/http-client';
import { type RelayWorker, startRelayWorker } from '../../src/worker/worker';
import { gql, rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { createDestination, createEndpoint, createWorkspace, insertEvent, linkEndpoint } from '../support/factories';
import { freePort } from '../support/free-port';
import { sql, waitForDeliveries, waitForStatus } from '../delivery/harness';
import { type Receiver, startReceiver } from '../delivery/receiver';

/**
 * Issues (docs/alerts.md#issues) against the real API, worker, dispatcher and publisher: failures open and
 * group into issues by destination and cause, their retry action replays every affected delivery,
 * and they resolve after three successes in a row (a failure restarts the count), or by hand;
 * each opening and resolution is an operational event.
 */
describe('issues (real PostgreSQL, Temporal server and worker, REST and GraphQL)', () => {
  let api: TestApi;
  let worker: RelayWorker;
  let dispatcher: DeliveryDispatcher;
  let publisher: OperationalEventPublisher;
  let receiver: Receiver;
  let token: string;
  let viewerToken: string;
  let projectId: string;
  let endpoint: Awaited<ReturnType<typeof createEndpoint>>['endpoint'];
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    // No coalescing, and no circuit opening on the refused destination (its failures keep one cause).
    api = await startTestApi({ RELAY_OPERATIONAL_EVENT_WINDOW_SECONDS: '0', RELAY_CIRCUIT_FAILURE_THRESHOLD: '1000' });
    worker = await startRelayWorker(api.container);
    dispatcher = new DeliveryDispatcher(api.container, { pollIntervalMs: 200 });
    await dispatcher.start();
    publisher = new OperationalEventPublisher(api.container, { pollIntervalMs: 500 });
    await publisher.start();
    receiver = await startReceiver();

    const em = api.container.orm.em.fork();
    const ws = await createWorkspace(em);
    const viewer = em.create(User, { email: `viewer-${ws.project.id}@example.test`, name: 'Viewer' });
    em.create(OrganizationMember, { organization: ws.organization, user: viewer, role: 'viewer' });
    await em.flush();
    token = await tokenFor(api.container, ws.user.id);
    viewerToken = await tokenFor(api.container, viewer.id);
    projectId = ws.project.id;
    ({ endpoint } = await createEndpoint(api.container, em, ws.project));
    const once = { retryPolicy: { max_attempts: 1, backoff: [1] } };
    const receiving = await createDestination(api.container, em, ws.project, { name: 'Orders hook', webhookUrl: receiver.url, ...once });
    const refused = await createDestination(api.container, em, ws.project, { name: 'Down hook', webhookUrl: `http://127.0.0.1:${await freePort()}/down`, ...once });
    await linkEndpoint(em, endpoint, receiving);
    await linkEndpoint(em, endpoint, refused);
    Object.assign(ids, { receiving: receiving.id, refused: refused.id });
  });

  afterAll(async () => {
    await publisher?.stop();
    await dispatcher?.stop();
    await worker?.stop();
    await receiver?.close();
    await closeHttpAgents();
    await api?.close();
  });

  const call = (method: string, path: string, body?: unknown, as = token) => rest(api.baseUrl, method, path, { token: as, projectId, body });
  const issuesOf = async (destinationId: string) => (await call('GET', `/v1/issues?destination_id=${destinationId}`)).body.data as Array<Record<string, any>>;
  const issue = async (id: string) => (await call('GET', `/v1/issues/${id}`)).body as Record<string, any>;
  async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
    for (;;) {
      const value = await read();
      if (ok(value)) return value;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  /** Sends an event and waits until both destinations' deliveries of it are done. */
  async function deliver(): Promise<string> {
    const eventId = await insertEvent(api.container, endpoint);
    for (const d of await waitForDeliveries(api.container, eventId, 2)) await waitForStatus(api.container, d.id, ['success', 'failed']);
    return eventId;
  }
  async function retry(issueId: string): Promise<void> {
    const started = await call('POST', `/v1/issues/${issueId}/retry`);
    expect(started.status).toBe(202);
    await until(() => call('GET', `/v1/bulk-actions/${started.body.id}`), (r) => r.body.status === 'completed');
  }
  const operationalEvents = () =>
    sql<{ event_type: string; payload: { data: { issue: { id: string; resolved_by: string | null } } } }>(
      api.container,
      `select e.event_type, e.payload from events e join webhook_endpoints ep on ep.id = e.endpoint_id and ep.is_system where e.project_id = ? and e.event_type like 'relay.issue.%' order by e.id`,
      [projectId],
    );

  it('opens one issue per destination and cause on the first failure, and counts failures and events into it', async () => {
    receiver.respond = () => ({ status: 500, body: 'boom' });
    await deliver();
    await deliver();
    receiver.respond = () => ({ status: 404, body: 'no such hook' });
    await deliver();

    const receiving = await issuesOf(ids.receiving);
    expect(receiving.map((i) => [i.cause, i.state, i.failure_count, i.event_count, i.last_status_code])).toEqual([
      ['http_4xx', 'open', 1, 1, 404],
      ['http_5xx', 'open', 2, 2, 500],
    ]);
    const [refused] = await issuesOf(ids.refused);
    expect(refused).toMatchObject({
      cause: 'connection_refused',
      state: 'open',
      failure_count: 3,
      event_count: 3,
      last_status_code: null,
      last_error: expect.stringMatching(/ECONNREFUSED/),
      destination: { id: ids.refused, name: 'Down hook', type: 'webhook' },
      success_streak: 0,
      resolved_at: null,
      resolved_by: null,
    });
    Object.assign(ids, { http5xx: receiving[1].id, http4xx: receiving[0].id, refusedIssue: refused.id });
    expect(receiving[1].first_seen_at < receiving[1].last_seen_at).toBe(true);

    expect((await call('GET', '/v1/issues/counts')).body).toEqual({ open: 3, acknowledged: 0, ignored: 0, resolved: 0 });
    expect((await call('GET', '/v1/issues?cause=http_5xx')).body.data.map((i: { id: string }) => i.id)).toEqual([ids.http5xx]);
    const viaGql = await gql(api.baseUrl, 'query { issues(state: "open") { data { id cause eventCount destination { name } } } issueCounts { open } }', {}, { token, projectId });
    expect(viaGql.data.issueCounts.open).toBe(3);
    expect(viaGql.data.issues.data).toContainEqual({ id: ids.http5xx, cause: 'http_5xx', eventCount: 2, destination: { name: 'Orders hook' } });

    // Each opening is an operational event on the project's system source.
    await until(operationalEvents, (events) => events.length === 3);
    expect((await operationalEvents()).map((e) => e.payload.data.issue.id).sort()).toEqual([ids.http5xx, ids.http4xx, ids.refusedIssue].sort());
  });

  it("retries every affected delivery, and resolves after the destination's next three successes in a row (a failure restarts the count)", async () => {
    receiver.respond = () => ({ status: 200, body: 'ok' });
    await retry(ids.http5xx);
    // Both of its events delivered: two successes of the destination count for each of its issues.
    await until(() => issue(ids.http4xx), (i) => i.success_streak === 2);
    expect(await issue(ids.http5xx)).toMatchObject({ state: 'open', success_streak: 2 });

    receiver.respond = () => ({ status: 500, body: 'boom again' });
    await deliver();
    expect(await issue(ids.http5xx)).toMatchObject({ state: 'open', success_streak: 0, failure_count: 3, event_count: 3 });
    expect(await issue(ids.http4xx)).toMatchObject({ state: 'open', success_streak: 0 });

    receiver.respond = () => ({ status: 200, body: 'ok' });
    await retry(ids.http4xx);
    await until(() => issue(ids.http4xx), (i) => i.success_streak === 1);
    // The second retry of the same issue replays only what failed since (the first two were delivered).
    await retry(ids.http5xx);
    await until(() => issue(ids.http4xx), (i) => i.success_streak === 2);
    // e1, e2 (500), e3 (404), the replays of e1 and e2, e4 (500), the replay of e3, the replay of e4.
    expect(receiver.requests).toHaveLength(8);
    await deliver();

    for (const id of [ids.http5xx, ids.http4xx]) expect(await issue(id)).toMatchObject({ state: 'resolved', resolved_by: 'auto', resolved_at: expect.any(String) });
    expect((await call('GET', '/v1/issues/counts')).body).toEqual({ open: 1, acknowledged: 0, ignored: 0, resolved: 2 });
    await until(operationalEvents, (events) => events.length === 5);
    const resolved = (await operationalEvents()).filter((e) => e.event_type === 'relay.issue.resolved');
    expect(resolved.map((e) => [e.payload.data.issue.id, e.payload.data.issue.resolved_by]).sort()).toEqual(
      [
        [ids.http5xx, 'auto'],
        [ids.http4xx, 'auto'],
      ].sort(),
    );
  });

  it('users acknowledge, ignore, resolve and reopen; a reopening beside a newer active issue is a 409; viewers only read', async () => {
    const id = ids.refusedIssue;
    expect((await call('PATCH', `/v1/issues/${id}`, { state: 'acknowledged' })).body).toMatchObject({ state: 'acknowledged' });
    const ignored = await gql(api.baseUrl, 'mutation($id: ID!) { updateIssue(id: $id, state: "ignored") { state } }', { id }, { token, projectId });
    expect(ignored.data.updateIssue.state).toBe('ignored');
    // An ignored issue still collects its failures: no new issue opens.
    await deliver();
    expect(await issuesOf(ids.refused)).toHaveLength(1);
    expect(await issue(id)).toMatchObject({ state: 'ignored', failure_count: 6, event_count: 6 });

    const resolved = await call('PATCH', `/v1/issues/${id}`, { state: 'resolved' });
    expect(resolved.body).toMatchObject({ state: 'resolved', resolved_by: 'user' });
    await until(operationalEvents, (events) => events.some((e) => e.event_type === 'relay.issue.resolved' && e.payload.data.issue.id === id));
    // A failure after resolution opens a new issue; the old one cannot be reopened beside it.
    await deliver();
    const [newer] = await issuesOf(ids.refused);
    expect(newer).toMatchObject({ state: 'open', failure_count: 1, event_count: 1 });
    expect(newer.id).not.toBe(id);
    const reopen = await call('PATCH', `/v1/issues/${id}`, { state: 'open' });
    expect(reopen.status).toBe(409);
    expect(reopen.body.error).toMatchObject({ code: 'issue_active_exists' });

    const bad = await call('PATCH', `/v1/issues/${id}`, { state: 'closed' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields[0].field).toBe('state');
    expect((await call('GET', `/v1/issues/${id}`, undefined, viewerToken)).status).toBe(200);
    const refused = await call('PATCH', `/v1/issues/${newer.id}`, { state: 'acknowledged' }, viewerToken);
    expect(refused.status).toBe(403);
    expect((await call('POST', `/v1/issues/${newer.id}/retry`, undefined, viewerToken)).status).toBe(403);
    expect((await call('GET', '/v1/issues/01a21780-0000-7000-8000-000000000000')).status).toBe(404);
  });
});
