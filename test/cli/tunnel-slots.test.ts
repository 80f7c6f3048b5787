import { type ApiServer, startApiServer } from '../../src/http/server';
import { attemptsOf, createScene, type DeliveryStack, sql, startDeliveryStack, waitForDeliveries, waitForStatus } from '../delivery/harness';
import { tokenFor } from '../support/api';
import { hubSignature, postHook } from '../support/ingress-helpers';
import { listen, report, startSession } from './tunnel-client';

/**
 * A `cli` attempt waits for the CLI's answer in its workflow (a signal raced
 * against a timer), not in a worker slot: with ONE attempt slot in the whole
 * worker, a silent CLI does not hold back another destination's delivery.
 * (Before, the attempt's local activity held the slot for the whole wait.)
 */
describe('a silent CLI holds no worker slot', () => {
  let stack: DeliveryStack;
  let server: ApiServer;

  beforeAll(async () => {
    stack = await startDeliveryStack({ env: { RELAY_WORKER_MAX_ATTEMPTS: '1', RELAY_DELIVERY_TIMEOUT_MS: '20000' } });
    server = await startApiServer(stack.t.container, 0, '127.0.0.1');
  });
  afterAll(async () => {
    await server?.close();
    await stack?.close();
  });

  it('delivers a webhook while a CLI forward waits for its answer, then records the answer', async () => {
    const container = stack.t.container;
    const cliScene = await createScene(container);
    const token = await tokenFor(container, cliScene.user.id);
    const { destinationId } = await startSession(server.url, token, { machine: 'silent' });
    const listener = await listen(server.url, token, container, destinationId);
    try {
      const body = '{"to":"cli"}';
      const res = await postHook(server.url, cliScene.endpoint.slug, body, hubSignature(cliScene.signingSecret, body));
      expect(res.status).toBe(202);
      const forward = await listener.next();

      const webScene = await createScene(container);
      await webScene.destination(stack.receiver.url);
      const webBody = '{"to":"webhook"}';
      const web = await postHook(server.url, webScene.endpoint.slug, webBody, hubSignature(webScene.signingSecret, webBody));
      const [webDelivery] = await waitForDeliveries(container, web.body.event_id!, 1);
      expect((await waitForStatus(container, webDelivery.id, ['success', 'failed'])).status).toBe('success');
      // The CLI's forward is still unanswered and its attempt unrecorded: it never held the one slot.
      expect(await attemptsOf(container, forward.deliveryId)).toEqual([]);
      expect(await sql(container, 'select id from cli_forwards where id = ? and result is null', [forward.id])).toHaveLength(1);

      expect(await report(server.url, token, { forwardId: forward.id, statusCode: 200, latencyMs: 3 })).toBe(true);
      expect((await waitForStatus(container, forward.deliveryId, ['success', 'failed'])).status).toBe('success');
    } finally {
      await listener.close();
    }
  }, 60_000);
});
