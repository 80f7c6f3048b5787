import { getDestination, updateDestination } from '../../src/destinations/destination.service';
import { insertEvent } from '../support/factories';
import { attemptsOf, createScene, type DeliveryStack, resetReceiver, type Scene, sql, startDeliveryStack, waitForDeliveries, waitForStatus, workflowResult } from './harness';

/**
 * What a receiver's own answer asks of the service (docs/delivery.md "Retries, timeouts and what receivers can say"),
 * against the real worker: a 410 Gone pauses the destination, a 503 with Retry-After is waited out
 * without counting an attempt while the retry schedule allows it.
 */
describe("receivers' own signals (real PostgreSQL, Temporal server and worker)", () => {
  let stack: DeliveryStack;
  let scene: Scene;

  beforeAll(async () => {
    stack = await startDeliveryStack();
  });

  afterAll(() => stack?.close());

  beforeEach(async () => {
    resetReceiver(stack.receiver);
    scene = await createScene(stack.t.container);
  });

  const container = () => stack.t.container;

  it('a 410 Gone fails the delivery at once and pauses the destination; resuming it undoes the pause', async () => {
    const destination = await scene.destination(stack.receiver.url);
    stack.receiver.respond = () => ({ status: 410, body: 'gone' });

    const eventId = await insertEvent(container(), scene.endpoint);
    const [delivery] = await waitForDeliveries(container(), eventId, 1);
    expect(await workflowResult(container(), delivery.id)).toBe('failed');
    // Retries were left (FAST_RETRIES has 4 attempts): the 410 made it permanent.
    const attempts = await attemptsOf(container(), delivery.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ status: 'failed', status_code: 410 });
    expect(attempts[0].error).toMatch(/^HTTP 410 Gone: the receiver says this URL is gone; the destination is paused/);
    expect((await waitForStatus(container(), delivery.id, ['failed'])).dead_lettered_at).not.toBeNull();

    const paused = await getDestination(scene.ctx(), destination.id);
    expect(paused).toMatchObject({ is_active: false, paused_reason: 'receiver_gone', paused_at: expect.any(String) });

    // A paused destination gets no new deliveries.
    const later = await insertEvent(container(), scene.endpoint);
    await waitForDispatched(later);
    expect(await sql(container(), 'select id from deliveries where event_id = ?', [later])).toHaveLength(0);

    const resumed = await updateDestination(scene.ctx(), destination.id, { is_active: true });
    expect(resumed).toMatchObject({ is_active: true, paused_reason: null, paused_at: null });
    stack.receiver.respond = () => ({ status: 200, body: 'ok' });
    const afterResume = await insertEvent(container(), scene.endpoint);
    const [next] = await waitForDeliveries(container(), afterResume, 1);
    expect(await workflowResult(container(), next.id)).toBe('success');
  });

  it('a user pause says so, and is not the receiver’s', async () => {
    const destination = await scene.destination(stack.receiver.url);
    const paused = await updateDestination(scene.ctx(), destination.id, { is_active: false });
    expect(paused).toMatchObject({ is_active: false, paused_reason: 'user', paused_at: expect.any(String) });
  });

  it("a 503's Retry-After is waited out without counting an attempt while the retry schedule allows it, and counts past its end", async () => {
    // The schedule ends 3 minutes after the delivery was created: far beyond two waits of 1 s.
    await scene.destination(stack.receiver.url, { retryPolicy: { max_attempts: 4, backoff: [60, 60, 60] } });
    stack.receiver.respond = (_req, index) => (index < 2 ? { status: 503, body: 'maintenance', headers: { 'retry-after': '1' } } : { status: 200, body: 'ok' });
    const eventId = await insertEvent(container(), scene.endpoint);
    const [delivery] = await waitForDeliveries(container(), eventId, 1);
    expect(await workflowResult(container(), delivery.id)).toBe('success');
    expect(stack.receiver.requests).toHaveLength(3);
    // Each 503 is on record, as an attempt the retry schedule does not count.
    expect((await attemptsOf(container(), delivery.id)).map((a) => [a.attempt_number, a.status, a.status_code])).toEqual([
      [1, 'rate_limited', 503],
      [2, 'rate_limited', 503],
      [3, 'success', 200],
    ]);

    // One attempt, no retries: the schedule ends when it starts, so the 503 is an ordinary (last) failure:
    // a receiver cannot keep a delivery forever.
    resetReceiver(stack.receiver);
    const other = await createScene(container());
    await other.destination(stack.receiver.url, { retryPolicy: { max_attempts: 1, backoff: [1] } });
    stack.receiver.respond = () => ({ status: 503, body: 'maintenance', headers: { 'retry-after': '1' } });
    const bounded = await insertEvent(container(), other.endpoint);
    const [last] = await waitForDeliveries(container(), bounded, 1);
    expect(await workflowResult(container(), last.id)).toBe('failed');
    expect(stack.receiver.requests).toHaveLength(1);
    const [only] = await attemptsOf(container(), last.id);
    expect([only.status, only.status_code]).toEqual(['failed', 503]);
    expect(only.error).toBe('HTTP 503 Service Unavailable; counted as a failed attempt: the wait would end after the retry schedule');
  });

  async function waitForDispatched(eventId: string): Promise<void> {
    for (;;) {
      const [row] = await sql<{ dispatched_at: string | null }>(container(), 'select dispatched_at from events where id = ?', [eventId]);
      if (row?.dispatched_at) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
});
