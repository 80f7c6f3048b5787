import { type ApiServer, startApiServer } from '../../src/http/server';
import { CliForwarder } from '../../src/cli-sessions/cli-forwarder';
import { NOTIFY } from '../../src/common/notify-channels';
import { loadAttemptContext } from '../../src/deliveries/attempt-store';
import { createScene, type DeliveryStack, type Scene, sql, startDeliveryStack, waitForStatus } from '../delivery/harness';
import { tokenFor } from '../support/api';
import { hubSignature, postHook } from '../support/ingress-helpers';
import { type Listener, listen, report, startSession } from './tunnel-client';

/**
 * The hand-off from the worker to the API process holding the CLI's
 * subscription (src/cli-sessions/cli-forward-notice.ts): a fresh forward
 * travels whole in its NOTIFY and is pushed without being read back; a
 * forward too big for a notification is announced by id and read from
 * `cli_forwards`; storing and announcing it is one statement.
 */
describe('the listen tunnel hand-off', () => {
  let stack: DeliveryStack;
  let server: ApiServer;
  let scene: Scene;
  let token: string;
  let listener: Listener | null = null;

  const container = () => stack.t.container;

  beforeAll(async () => {
    stack = await startDeliveryStack({ env: { RELAY_DELIVERY_TIMEOUT_MS: '5000' } });
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

  async function ingest(body: string): Promise<string> {
    const res = await postHook(server.url, scene.endpoint.slug, body, hubSignature(scene.signingSecret, body));
    expect(res.status).toBe(202);
    return res.body.event_id!;
  }

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
});
