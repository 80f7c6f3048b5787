import { type ApiServer, startApiServer } from '../../src/http/server';
import { CliForwarder, NO_CLI_CONNECTED } from '../../src/cli-sessions/cli-forwarder';
import { NOTIFY } from '../../src/common/notify-channels';
import { loadAttemptContext } from '../../src/deliveries/attempt-store';
import { signOutbound } from '../../src/sending/signature';
import { OrganizationMember } from '../../src/organizations/organization-member.entity';
import { Transform } from '../../src/transforms/transform.entity';
import { User } from '../../src/users/user.entity';
import { attemptsOf, createScene, type DeliveryStack, type Scene, sql, startDeliveryStack, waitForDeliveries, waitForStatus } from '../delivery/harness';
import { gql, tokenFor } from '../support/api';
import { createEndpoint, createWorkspace } from '../support/factories';
import { hubSignature, postHook } from '../support/ingress-helpers';
import { eventually } from '../support/live-client';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { type Listener, listen, presenceRows, report, START_SESSION, startSession } from './tunnel-client';

/**
 * The server side of `relay listen` in one process (API + worker + outbox
 * dispatcher on one container), driven as the CLI drives it: GraphQL over
 * HTTP for the mutations, a raw graphql-ws client for `cliForwards`.
 */
describe('the listen tunnel', () => {
  let stack: DeliveryStack;
  let server: ApiServer;
  let scene: Scene;
  let token: string;
  let listener: Listener | null = null;

  const container = () => stack.t.container;

  beforeAll(async () => {
    stack = await startDeliveryStack({ env: { RELAY_DELIVERY_TIMEOUT_MS: '2000' } });
    server = await startApiServer(container(), 0, '127.0.0.1');
  });
  afterAll(async () => {
    await server?.close();
    await stack?.close();
  });
  beforeEach(async () => {
    scene = await createScene(container());
    token = await tokenFor(container(), scene.user.id);
  });
  afterEach(async () => {
    await listener?.close();
    listener = null;
  });

  /** Ingests `body` (exact text) through the real ingress and returns the event id. */
  async function ingest(body: string, headers: Record<string, string> = {}): Promise<string> {
    const res = await postHook(server.url, scene.endpoint.slug, body, { ...hubSignature(scene.signingSecret, body), ...headers });
    expect(res.status).toBe(202);
    return res.body.event_id!;
  }

  it('forwards an event to the connected CLI and records its answer as the attempt', async () => {
    const { destinationId, name } = await startSession(server.url, token, { machine: 'laptop', sourceSlugs: [scene.endpoint.slug] });
    expect(name).toBe(`cli:${scene.user.email}@laptop:${scene.endpoint.slug}`);
    listener = await listen(server.url, token, container(), destinationId);

    // Odd spacing on purpose: the CLI gets the event's own bytes, not a re-serialization.
    const body = '{ "order":  42, "note": "héllo" }';
    const eventId = await ingest(body, { 'X-Custom': 'kept' });
    const forward = await listener.next();
    const prefix = `x-${scene.project.headerPrefix}`.toLowerCase();
    const headerNames = Object.keys(forward.headers).map((h) => h.toLowerCase());
    expect(forward).toMatchObject({ eventId, attemptNumber: 1, sourceSlug: scene.endpoint.slug, method: 'POST', body, delayMs: 0 });
    expect(forward.headers['x-custom']).toBe('kept');
    expect(headerNames).toEqual(expect.arrayContaining([`${prefix}-event-id`, `${prefix}-endpoint-id`, `${prefix}-delivery-id`]));
    expect(headerNames).not.toContain('host');
    expect(headerNames).not.toContain('content-length');
    expect(headerNames).not.toContain('connection');

    const answered = await report(server.url, token, {
      forwardId: forward.id,
      statusCode: 201,
      responseHeaders: { 'content-type': 'text/plain', 'x-local': 'yes' },
      responseBody: 'created locally',
      latencyMs: 37,
    });
    expect(answered).toBe(true);
    const delivery = await waitForStatus(container(), forward.deliveryId, ['success', 'failed']);
    expect(delivery.status).toBe('success');
    const [attempt] = await attemptsOf(container(), forward.deliveryId);
    expect(attempt).toMatchObject({ status: 'success', status_code: 201, response_body: 'created locally', latency_ms: 37, error: null });
    const [stored] = await sql<{ response_headers: Record<string, string> }>(container(), 'select response_headers from delivery_attempts where delivery_id = ?', [forward.deliveryId]);
    expect(stored.response_headers).toEqual({ 'content-type': 'text/plain', 'x-local': 'yes' });
    // A second answer to the same forward is no longer awaited.
    expect(await report(server.url, token, { forwardId: forward.id, statusCode: 200, latencyMs: 1 })).toBe(false);
  });

  it('signs the forward over its exact body when the destination has a signing secret', async () => {
    const { destinationId } = await startSession(server.url, token, { machine: 'signed' });
    const secret = 'whsec_cli_tunnel_test_secret_0123456789';
    const set = await gql(server.url, 'mutation($id: ID!, $s: String) { updateDestination(id: $id, input: { signingSecret: $s }) { hasSigningSecret } }', { id: destinationId, s: secret }, { token });
    expect(set.data?.updateDestination.hasSigningSecret).toBe(true);
    listener = await listen(server.url, token, container(), destinationId);
    const body = '{"signed" : [1, 2,3]}';
    await ingest(body);
    const forward = await listener.next();
    const prefix = `X-${scene.project.headerPrefix}`;
    const timestamp = Number(forward.headers[`${prefix}-Timestamp`]);
    expect(forward.body).toBe(body);
    expect(forward.headers[`${prefix}-Signature`]).toBe(signOutbound(secret, timestamp, body));
    await report(server.url, token, { forwardId: forward.id, statusCode: 200, latencyMs: 1 });
  });

  it('signs forwards in the Standard Webhooks scheme when the session asks for it (the secret --print-secret shows verifies them)', async () => {
    const started = await gql(server.url, START_SESSION.replace('delayMs }', 'delayMs signingSecret signatureScheme }'), { input: { machine: 'standard', signatureScheme: 'standard' } }, { token });
    const session = started.data.startCliSession;
    expect(session).toMatchObject({ signatureScheme: 'standard', signingSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
    listener = await listen(server.url, token, container(), session.destination.id);
    const body = '{"standard" : [1, 2,3], "é": true}';
    await ingest(body);
    const forward = await listener.next();
    expect(forward.body).toBe(body);
    expect(forward.headers['webhook-id']).toBe(forward.deliveryId);
    expect(new Webhook(session.signingSecret).verify(forward.body, forward.headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(session.signingSecret).verify(`${body} `, forward.headers)).toThrow(WebhookVerificationError);
    expect(forward.headers[`X-${scene.project.headerPrefix}-Signature`]).toBeUndefined();
    await report(server.url, token, { forwardId: forward.id, statusCode: 200, latencyMs: 1 });
    // Kept across sessions, with its secret, until changed.
    const again = await gql(server.url, START_SESSION.replace('delayMs }', 'delayMs signingSecret signatureScheme }'), { input: { machine: 'standard' } }, { token });
    expect(again.data.startCliSession).toMatchObject({ signatureScheme: 'standard', signingSecret: session.signingSecret });
  });

  it('skips the delivery when no CLI is connected (not a failure, not a dead letter), and forwards nothing', async () => {
    const { destinationId } = await startSession(server.url, token, { machine: 'offline-box' });
    const eventId = await ingest('{"n":1}');
    const [delivery] = await waitForDeliveries(container(), eventId, 1);
    expect(delivery.destination_id).toBe(destinationId);
    const done = await waitForStatus(container(), delivery.id, ['success', 'failed', 'skipped']);
    expect(done.status).toBe('skipped');
    const [row] = await sql<{ dead_lettered_at: Date | null }>(container(), 'select dead_lettered_at from deliveries where id = ?', [delivery.id]);
    expect(row.dead_lettered_at).toBeNull();
    const attempts = await attemptsOf(container(), delivery.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ status: 'skipped', error: NO_CLI_CONNECTED });
    expect(await sql(container(), 'select id from cli_forwards where destination_id = ?', [destinationId])).toEqual([]);
  });

  it('retries after a local 500 while the CLI stays connected', async () => {
    const { destinationId } = await startSession(server.url, token, { machine: 'flaky' });
    listener = await listen(server.url, token, container(), destinationId);
    await ingest('{"retry":true}');
    const first = await listener.next();
    expect(await report(server.url, token, { forwardId: first.id, statusCode: 500, responseBody: 'boom', latencyMs: 5 })).toBe(true);
    await eventually(async () => (await attemptsOf(container(), first.deliveryId)).length === 1);
    expect((await attemptsOf(container(), first.deliveryId))[0]).toMatchObject({ status: 'retrying', status_code: 500, response_body: 'boom' });

    const second = await listener.next();
    expect(second).toMatchObject({ deliveryId: first.deliveryId, attemptNumber: 2, body: first.body });
    expect(await report(server.url, token, { forwardId: second.id, statusCode: 200, latencyMs: 3 })).toBe(true);
    expect((await waitForStatus(container(), first.deliveryId, ['success', 'failed'])).status).toBe('success');
  });

  it('skips a retry when the CLI has gone meanwhile', async () => {
    const { destinationId } = await startSession(server.url, token, { machine: 'gone' });
    listener = await listen(server.url, token, container(), destinationId);
    await ingest('{"bye":true}');
    const first = await listener.next();
    await report(server.url, token, { forwardId: first.id, statusCode: 502, latencyMs: 4 });
    await listener.close();
    listener = null;
    expect((await waitForStatus(container(), first.deliveryId, ['success', 'failed', 'skipped'])).status).toBe('skipped');
    const attempts = await attemptsOf(container(), first.deliveryId);
    expect(attempts.map((a) => [a.status, a.status_code, a.error])).toEqual([
      ['retrying', 502, 'HTTP 502 Bad Gateway'],
      ['skipped', null, NO_CLI_CONNECTED],
    ]);
  });

  it('a retried attempt (its worker lost) finds its forward again: announced again, or its answer taken', async () => {
    const { destinationId } = await startSession(server.url, token, { machine: 'retried' });
    listener = await listen(server.url, token, container(), destinationId);
    await ingest('{"case":"retried"}');
    const first = await listener.next();
    await report(server.url, token, { forwardId: first.id, statusCode: 200, latencyMs: 1 });
    await waitForStatus(container(), first.deliveryId, ['success', 'failed']);

    // Attempt 2 of the same delivery, as a restarted worker would run it: a second forwarder, forwards stored beforehand.
    const knex = container().orm.em.getConnection().getKnex();
    const ctx = (await loadAttemptContext(knex, first.deliveryId, 2))!;
    const forwarder = new CliForwarder(container());
    const store = (id: string, result: unknown) =>
      sql(container(), `insert into cli_forwards (id, delivery_id, attempt_number, destination_id, project_id, event_id, headers, body, delay_ms, result)
                        values (?, ?, 2, ?, ?, ?, '{}'::jsonb, '{"n":1}', 0, ?::jsonb)`, [id, first.deliveryId, destinationId, ctx.projectId, ctx.eventId, result]);
    const request = { ctx: { ...ctx, attemptNumber: 2 }, transformed: null, signing: null, timeoutMs: 10_000 };

    const pendingId = '01900000-0000-7000-8000-00000000a002';
    await store(pendingId, null);
    // The API is told again, so the CLI gets the forward it may never have received.
    expect(await forwarder.begin(request)).toEqual({ forwardId: pendingId, waitMs: 10_000 });
    expect((await listener.next()).id).toBe(pendingId);
    await sql(container(), `update cli_forwards set result = ?::jsonb where id = ?`, [
      JSON.stringify({ statusCode: 202, responseHeaders: {}, responseBody: 'from before', latencyMs: 5, error: null, skipped: false }),
      pendingId,
    ]);
    // Already answered: announced no more; collect takes the answer and removes the forward.
    expect(await forwarder.begin(request)).toEqual({ forwardId: pendingId, waitMs: 10_000 });
    expect(await forwarder.collect(pendingId, 10_000)).toMatchObject({ statusCode: 202, responseBody: 'from before', payloadSent: { n: 1 } });
    expect(await sql(container(), 'select id from cli_forwards where id = ?', [pendingId])).toEqual([]);
    expect(await forwarder.collect(pendingId, 10_000)).toBeNull();
  });

  it('records a connection error, a pause and a missing answer as the contract says', async () => {
    const { destinationId } = await startSession(server.url, token, { machine: 'edge-cases' });
    listener = await listen(server.url, token, container(), destinationId);

    await ingest('{"case":"refused"}');
    const refused = await listener.next();
    await report(server.url, token, { forwardId: refused.id, statusCode: null, error: 'connect ECONNREFUSED 127.0.0.1:4000', latencyMs: 2 });
    await eventually(async () => (await attemptsOf(container(), refused.deliveryId)).length === 1);
    expect((await attemptsOf(container(), refused.deliveryId))[0]).toMatchObject({ status: 'retrying', status_code: null, error: 'connect ECONNREFUSED 127.0.0.1:4000' });
    await gql(server.url, 'mutation($id: ID!) { cancelDelivery(id: $id) { id } }', { id: refused.deliveryId }, { token });

    await ingest('{"case":"paused"}');
    const paused = await listener.next();
    await report(server.url, token, { forwardId: paused.id, skipped: true, latencyMs: 0 });
    expect((await waitForStatus(container(), paused.deliveryId, ['success', 'failed', 'skipped'])).status).toBe('skipped');
    expect((await attemptsOf(container(), paused.deliveryId))[0].error).toBe('paused in the CLI: not forwarded');

    await ingest('{"case":"silent"}');
    const silent = await listener.next();
    // RELAY_DELIVERY_TIMEOUT_MS is 2000 here and the session has no delay.
    await eventually(async () => (await attemptsOf(container(), silent.deliveryId)).length === 1, 15_000);
    expect((await attemptsOf(container(), silent.deliveryId))[0]).toMatchObject({ status: 'retrying', error: 'the CLI did not answer within 2000 ms' });
    expect(await report(server.url, token, { forwardId: silent.id, statusCode: 200, latencyMs: 1 })).toBe(false);
    await gql(server.url, 'mutation($id: ID!) { cancelDelivery(id: $id) { id } }', { id: silent.deliveryId }, { token });
  });

  it('counts only the local round trip as latency: not the wait for a CLI that does not answer (reconnecting), nor a pause', async () => {
    const { destinationId } = await startSession(server.url, token, { machine: 'flaky-wifi' });
    listener = await listen(server.url, token, container(), destinationId);

    // Attempt 1 reaches a tunnel that has dropped (the CLI is reconnecting): nobody answers within the 2000 ms wait.
    await ingest('{"case":"reconnecting"}');
    const lost = await listener.next();
    await eventually(async () => (await attemptsOf(container(), lost.deliveryId)).length === 1, 15_000);
    expect((await attemptsOf(container(), lost.deliveryId))[0]).toMatchObject({ status: 'retrying', error: 'the CLI did not answer within 2000 ms', latency_ms: null });
    // Back: the retry is answered, 12 ms at the local server.
    const retry = await listener.next(15_000);
    expect(retry).toMatchObject({ deliveryId: lost.deliveryId, attemptNumber: 2 });
    await report(server.url, token, { forwardId: retry.id, statusCode: 200, latencyMs: 12 });
    await waitForStatus(container(), lost.deliveryId, ['success']);

    await ingest('{"case":"paused"}');
    const paused = await listener.next();
    await report(server.url, token, { forwardId: paused.id, skipped: true, latencyMs: 0 });
    await waitForStatus(container(), paused.deliveryId, ['skipped']);
    expect((await attemptsOf(container(), paused.deliveryId))[0]).toMatchObject({ status: 'skipped', latency_ms: null });

    const metrics = await gql(server.url, 'query { projectMetrics(range: HOUR) { latency { destinationId attempts p50Ms p95Ms } } }', {}, { token });
    expect(metrics.errors).toBeUndefined();
    expect(metrics.data.projectMetrics.latency.find((l: { destinationId: string }) => l.destinationId === destinationId)).toEqual({ destinationId, attempts: 1, p50Ms: 12, p95Ms: 12 });
    const health = await gql(server.url, 'query($id: ID!) { destination(id: $id) { health { p95LatencyMs24h } } }', { id: destinationId }, { token });
    expect(health.data.destination.health.p95LatencyMs24h).toBe(12);
  });

  it('forwards the transformed JSON, with the session delay, and replays one event to this destination only', async () => {
    const em = container().orm.em.fork();
    em.create(Transform, { project: scene.project, name: 'only-order', expression: '{ "order": order }' });
    await em.flush();
    const other = await scene.destination(`${stack.receiver.url}/other`);
    const { destinationId } = await startSession(server.url, token, { machine: 'transformer', transformName: 'only-order', delayMs: 250 });
    listener = await listen(server.url, token, container(), destinationId);

    const eventId = await ingest('{"order": 7, "secret": "drop me"}');
    const forward = await listener.next();
    expect(JSON.parse(forward.body)).toEqual({ order: 7 });
    expect(forward.delayMs).toBe(250);
    expect(forward.headers['content-type']).toBe('application/json');
    await report(server.url, token, { forwardId: forward.id, statusCode: 200, latencyMs: 260 });
    await waitForStatus(container(), forward.deliveryId, ['success']);

    const res = await gql(server.url, 'mutation($d: ID!, $e: ID!) { replayCliEvent(destinationId: $d, eventId: $e) { id destinationId replayOfId } }', { d: destinationId, e: eventId }, { token });
    expect(res.errors).toBeUndefined();
    expect(res.data.replayCliEvent).toMatchObject({ destinationId, replayOfId: forward.deliveryId });
    const replayed = await listener.next();
    expect(replayed).toMatchObject({ eventId, deliveryId: res.data.replayCliEvent.id, attemptNumber: 1 });
    await report(server.url, token, { forwardId: replayed.id, statusCode: 200, latencyMs: 1 });
    const deliveries = await waitForDeliveries(container(), eventId, 3);
    expect(deliveries.filter((d) => d.destination_id === other.id)).toHaveLength(1);
  });

  it('offers an event skipped during a drop even when an earlier forward’s attempt is recorded after it (and before the reconnection)', async () => {
    const { destinationId } = await startSession(server.url, token, { machine: 'late-record' });
    const missed = async () => {
      const res = await gql(server.url, 'query($d: ID!) { cliMissedEvents(destinationId: $d) }', { d: destinationId }, { token });
      expect(res.errors).toBeUndefined();
      return res.data.cliMissedEvents as string[];
    };
    listener = await listen(server.url, token, container(), destinationId);
    await ingest('{"n":"forwarded before the drop"}');
    const early = await listener.next();
    // The connection drops while that forward waits for its answer; the next event is skipped: nobody is connected.
    await listener.close();
    listener = null;
    await eventually(async () => (await presenceRows(container(), destinationId)) === 0);
    const skippedId = await ingest('{"n":"arrived during the drop"}');
    const skipped = (await waitForDeliveries(container(), skippedId, 1)).find((d) => d.destination_id === destinationId)!;
    expect((await waitForStatus(container(), skipped.id, ['skipped', 'success', 'failed'])).status).toBe('skipped');
    // Only now is the earlier forward's answer recorded: its attempt row is written after the skip's.
    expect(await report(server.url, token, { forwardId: early.id, statusCode: 200, latencyMs: 3 })).toBe(true);
    await waitForStatus(container(), early.deliveryId, ['success']);
    // Then the CLI reconnects and asks what it missed.
    listener = await listen(server.url, token, container(), destinationId);
    expect(await missed()).toEqual([skippedId]);
  });

  it('keeps presence while subscribed and removes it on unsubscribe', async () => {
    const { destinationId } = await startSession(server.url, token, { machine: 'presence' });
    listener = await listen(server.url, token, container(), destinationId);
    expect(await presenceRows(container(), destinationId)).toBe(1);
    await listener.close();
    listener = null;
    await eventually(async () => (await presenceRows(container(), destinationId)) === 0);
  });

  it('ends the subscription when the destination is deleted (the CLI then starts a new session)', async () => {
    const { destinationId } = await startSession(server.url, token, { machine: 'deleted' });
    listener = await listen(server.url, token, container(), destinationId);
    const res = await gql(server.url, 'mutation($id: ID!) { deleteDestination(id: $id) }', { id: destinationId }, { token });
    expect(res.errors).toBeUndefined();
    // Within one heartbeat (5 s).
    await listener.ended;
    expect(await presenceRows(container(), destinationId)).toBe(0);
  });

  it('refuses cliForwards to anyone but the user whose session created the destination: a viewer and another developer', async () => {
    const { destinationId } = await startSession(server.url, token, { machine: 'owned' });
    const em = container().orm.em.fork();
    for (const role of ['viewer', 'developer'] as const) {
      const user = em.create(User, { email: `${role}-${Date.now()}@example.test`, name: role });
      em.create(OrganizationMember, { organization: scene.organization, user, role });
      await em.flush();
      const other = await tokenFor(container(), user.id);
      await expect(listen(server.url, other, container(), destinationId)).rejects.toThrow(/forbidden/);
      // Nor change it (its answer carries the signing secret) or replay to it.
      const update = await gql(server.url, 'mutation($d: ID!) { updateCliSession(destinationId: $d, input: { delayMs: 1 }) { delayMs } }', { d: destinationId }, { token: other });
      expect(update.errors?.[0].extensions?.code).toBe(role === 'viewer' ? 'insufficient_role' : 'forbidden');
      // Nor read what it missed.
      const missed = await gql(server.url, 'query($d: ID!) { cliMissedEvents(destinationId: $d, since: "2026-01-01T00:00:00Z") }', { d: destinationId }, { token: other });
      expect(missed.errors?.[0].extensions?.code).toBe('forbidden');
    }
    const badSince = await gql(server.url, 'query($d: ID!) { cliMissedEvents(destinationId: $d, since: "yesterday") }', { d: destinationId }, { token });
    expect(badSince.errors?.[0]).toMatchObject({ message: expect.stringContaining('since: must be an ISO 8601 date-time'), extensions: { code: 'invalid_input' } });
    // Nobody else became "connected": an event to it is skipped (no CLI), not forwarded to a stranger.
    expect(await presenceRows(container(), destinationId)).toBe(0);
    listener = await listen(server.url, token, container(), destinationId);
    expect(await presenceRows(container(), destinationId)).toBe(1);
  });

  it('refuses a subscription to a destination that is not a cli destination of the project', async () => {
    const webhook = await scene.destination(`${stack.receiver.url}/w`);
    await expect(listen(server.url, token, container(), webhook.id)).rejects.toThrow(/not_found/);
  });

  it('reuses the destination by name, and refuses unknown sources, a project without sources and non-cli destinations', async () => {
    const first = await startSession(server.url, token, { machine: 'same' });
    const again = await startSession(server.url, token, { machine: 'same' });
    expect(again.destinationId).toBe(first.destinationId);
    expect(first.name).toBe(`cli:${scene.user.email}@same:*`);

    const unknown = await gql(server.url, 'mutation { startCliSession(input: { machine: "m", sourceSlugs: ["nope"] }) { delayMs } }', {}, { token });
    expect(unknown.errors?.[0].extensions?.code).toBe('not_found');

    const em = container().orm.em.fork();
    const empty = await createWorkspace(em);
    const emptyToken = await tokenFor(container(), empty.user.id);
    const none = await gql(server.url, 'mutation { startCliSession(input: { machine: "m" }) { delayMs } }', {}, { token: emptyToken });
    expect(none.errors?.[0].extensions?.code).toBe('no_sources');

    const unknownTransform = await gql(server.url, 'mutation { startCliSession(input: { machine: "fresh", transformName: "nope" }) { delayMs } }', {}, { token });
    expect(unknownTransform.errors?.[0].extensions?.code).toBe('not_found');
    expect(await sql(container(), 'select id from destinations where name = ?', [`cli:${scene.user.email}@fresh:*`])).toEqual([]);

    const badDelay = await gql(server.url, 'mutation { startCliSession(input: { machine: "m", delayMs: 10001 }) { delayMs } }', {}, { token });
    expect(badDelay.errors?.[0].extensions?.code).toBe('invalid_input');

    const webhook = await scene.destination(`${stack.receiver.url}/w`);
    const notCli = await gql(server.url, 'mutation($d: ID!) { updateCliSession(destinationId: $d, input: { delayMs: 1 }) { delayMs } }', { d: webhook.id }, { token });
    expect(notCli.errors?.[0].extensions?.code).toBe('not_found');
  });

  it('updateCliSession changes sources, transform and delay on the same destination', async () => {
    const second = await createEndpoint(container(), container().orm.em.fork(), scene.project, { slug: `second-${Date.now()}` });
    const { destinationId } = await startSession(server.url, token, { machine: 'upd', sourceSlugs: [scene.endpoint.slug], delayMs: 100 });
    const res = await gql(
      server.url,
      'mutation($d: ID!, $i: UpdateCliSessionInput!) { updateCliSession(destinationId: $d, input: $i) { destination { id name } sources { slug } delayMs transformName } }',
      { d: destinationId, i: { sourceSlugs: [second.endpoint.slug] } },
      { token },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.updateCliSession).toMatchObject({
      destination: { id: destinationId, name: `cli:${scene.user.email}@upd:${second.endpoint.slug}` },
      sources: [{ slug: second.endpoint.slug }],
      delayMs: 100,
      transformName: null,
    });
    const links = await sql<{ endpoint_id: string }>(container(), 'select endpoint_id from endpoint_destinations where destination_id = ?', [destinationId]);
    expect(links.map((l) => l.endpoint_id)).toEqual([second.endpoint.id]);
  });

  // The hand-off from the worker to the API process holding the subscription (src/cli-sessions/cli-forward-notice.ts):
  // a fresh forward travels whole in its NOTIFY and is pushed without being read back; a forward too big for a
  // notification is announced by id and read from `cli_forwards`; storing and announcing it is one statement.
  it('pushes the forward a notice carries without reading it back from cli_forwards', async () => {
    const { destinationId } = await startSession(server.url, token, { machine: 'notice' });
    listener = await listen(server.url, token, container(), destinationId);
    // No such row: only the notice itself can bring this forward to the subscriber.
    const forward = {
      id: '01900000-0000-7000-8000-00000000c0de',
      eventId: '01900000-0000-7000-8000-00000000e0e0',
      deliveryId: '01900000-0000-7000-8000-00000000d0d0',
      attemptNumber: 1,
      eventType: 'order',
      sourceSlug: scene.endpoint.slug,
      receivedAt: '2026-11-24T13:00:00.000Z',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{ "n":  1 }',
      delayMs: 0,
    };
    await sql(container(), 'select pg_notify(?, ?)', [NOTIFY.cliForwards, `${destinationId} ${forward.id} ${JSON.stringify(forward)}`]);
    expect(await listener.next(10_000)).toEqual(forward);
  });

  it('forwards an event too big for a notification byte for byte (announced by id, read from the table)', async () => {
    const { destinationId } = await startSession(server.url, token, { machine: 'big' });
    listener = await listen(server.url, token, container(), destinationId);
    const body = `{ "pad":  "${'é'.repeat(6000)}", "n": 12345678901234567890 }`;
    const eventId = await ingest(body);
    const forward = await listener.next();
    expect(forward).toMatchObject({ eventId, attemptNumber: 1, sourceSlug: scene.endpoint.slug });
    expect(Buffer.from(forward.body).equals(Buffer.from(body))).toBe(true);
    await report(server.url, token, { forwardId: forward.id, statusCode: 200, latencyMs: 1 });
    expect((await waitForStatus(container(), forward.deliveryId, ['success', 'failed'])).status).toBe('success');
  });

  it('stores and announces a forward in one statement, and stores nothing when no CLI is connected', async () => {
    const { destinationId } = await startSession(server.url, token, { machine: 'one-statement' });
    listener = await listen(server.url, token, container(), destinationId);
    await ingest('{"n":2}');
    const first = await listener.next();
    await report(server.url, token, { forwardId: first.id, statusCode: 200, latencyMs: 1 });
    await waitForStatus(container(), first.deliveryId, ['success', 'failed']);

    // Attempt 2 of the same delivery, made here, counting the statements that name this destination.
    const knex = container().orm.em.getConnection().getKnex();
    const ctx = (await loadAttemptContext(knex, first.deliveryId, 2))!;
    const statements: string[] = [];
    const count = (q: { sql: string; bindings?: unknown[] }) => void (q.bindings?.includes(destinationId) && statements.push(q.sql));
    knex.on('query', count);
    try {
      const out = await new CliForwarder(container()).begin({ ctx, transformed: null, signing: null, timeoutMs: 5_000 });
      expect(out).toMatchObject({ forwardId: expect.any(String), waitMs: 5_000 });
      expect(statements).toHaveLength(1);
      expect((await listener.next()).attemptNumber).toBe(2);

      await listener.close();
      listener = null;
      await sql(container(), 'delete from cli_sessions where destination_id = ?', [destinationId]);
      statements.length = 0;
      const skipped = await new CliForwarder(container()).begin({ ctx: { ...ctx, attemptNumber: 3 }, transformed: null, signing: null, timeoutMs: 5_000 });
      expect(skipped).toMatchObject({ skipped: true, error: 'no CLI connected: the event is stored but not forwarded' });
      expect(statements).toHaveLength(1);
      expect(await sql(container(), 'select id from cli_forwards where delivery_id = ? and attempt_number = 3', [first.deliveryId])).toEqual([]);
    } finally {
      knex.removeListener('query', count);
    }
  });

  // Last in this file: it closes the container's LISTEN connection.
  it('in one process (worker and API, as `relay start`), hands the forward to the subscription without the notification', async () => {
    const { destinationId } = await startSession(server.url, token, { machine: 'one-process' });
    listener = await listen(server.url, token, container(), destinationId);
    await container().notifications.close();
    // A small forward, and one too big to travel in a notification: both handed over in the process.
    for (const body of ['{ "one":  "process" }', `{ "pad":  "${'é'.repeat(6000)}" }`]) {
      const eventId = await ingest(body);
      const forward = await listener.next(15_000);
      expect(forward).toMatchObject({ eventId, body });
      await report(server.url, token, { forwardId: forward.id, statusCode: 200, latencyMs: 1 });
      expect((await waitForStatus(container(), forward.deliveryId, ['success', 'failed'])).status).toBe('success');
    }
  });
});
