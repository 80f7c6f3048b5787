import { randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { createDestination, rotateSigningSecret, updateDestination } from '../../src/destinations/destination.service';
import { createLink } from '../../src/links/link.service';
import { insertEvent } from '../support/factories';
import { createScene, type DeliveryStack, FAST_RETRIES, resetReceiver, type Scene, startDeliveryStack, waitForDeliveries, waitForStatus } from '../delivery/harness';
import type { ReceivedRequest } from '../delivery/receiver';

/**
 * Standard Webhooks signing, checked as a receiver checks it: real deliveries
 * (real PostgreSQL, Temporal server and worker, a local HTTP receiver) verified
 * with the official `standardwebhooks` package, before, during and after a rotation.
 */
describe('signature_scheme standard: deliveries a Standard Webhooks library verifies', () => {
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

  /** A Standard Webhooks destination linked to the scene's endpoint; the secret generated (and shown once) unless given. */
  async function standardDestination(signingSecret?: string): Promise<{ id: string; secret: string }> {
    const created = await createDestination(scene.ctx(), {
      name: 'Standard receiver',
      type: 'webhook',
      webhook_url: stack.receiver.url,
      signature_scheme: 'standard',
      retry_policy: FAST_RETRIES,
      ...(signingSecret ? { signing_secret: signingSecret } : {}),
    });
    expect(created).toMatchObject({ signature_scheme: 'standard', has_signing_secret: true });
    await createLink(scene.ctx(), scene.endpoint.id, { destination_id: created.id });
    return { id: created.id, secret: signingSecret ?? created.signing_secret! };
  }

  /** Sends one event through the pipeline and answers the requests its delivery made, once it succeeded. */
  async function deliver(payload: unknown): Promise<{ deliveryId: string; requests: ReceivedRequest[] }> {
    const before = stack.receiver.requests.length;
    const eventId = await insertEvent(stack.t.container, scene.endpoint, { eventType: 'order.paid', payload });
    const [delivery] = await waitForDeliveries(stack.t.container, eventId, 1);
    expect((await waitForStatus(stack.t.container, delivery.id, ['success', 'failed'])).status).toBe('success');
    return { deliveryId: delivery.id, requests: stack.receiver.requests.slice(before) };
  }

  /** What a receiver does: the raw body and the request's headers into the library; throws when it does not verify. */
  const verify = (secret: string, req: ReceivedRequest, body = req.body) => new Webhook(secret).verify(body, req.headers as Record<string, string>);

  /** The request with one byte of `part` changed. */
  function flipByte(text: string, at: number): string {
    const bytes = Buffer.from(text);
    bytes[at] ^= 0x01;
    return bytes.toString();
  }

  it('signs with a generated whsec_ secret: webhook-id, webhook-timestamp, webhook-signature; one changed byte fails', async () => {
    const { secret } = await standardDestination();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const payload = { order: 42, note: 'héllo', nested: { list: [1, 2, 3] } };
    const { deliveryId, requests } = await deliver(payload);
    expect(requests).toHaveLength(1);
    const [req] = requests;
    expect(verify(secret, req)).toEqual(payload);
    expect(req.headers['webhook-id']).toBe(deliveryId);
    expect(Number(req.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -3);
    expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    // The scheme replaces the service's signature headers; the id headers stay.
    expect(req.headers['x-service-signature']).toBeUndefined();
    expect(req.headers['x-service-timestamp']).toBeUndefined();
    expect(req.headers['x-service-delivery-id']).toBe(deliveryId);

    // Any byte of difference fails: in the body, the id, the timestamp, the signature, or the secret.
    for (let at = 0; at < Buffer.byteLength(req.body); at++) {
      expect(() => verify(secret, req, flipByte(req.body, at))).toThrow(WebhookVerificationError);
    }
    const altered = (name: string, value: string) => ({ ...req, headers: { ...req.headers, [name]: value } });
    expect(() => verify(secret, altered('webhook-id', flipByte(deliveryId, 0)))).toThrow(WebhookVerificationError);
    expect(() => verify(secret, altered('webhook-timestamp', String(Number(req.headers['webhook-timestamp']) - 1)))).toThrow(WebhookVerificationError);
    const signature = req.headers['webhook-signature'] as string;
    expect(() => verify(secret, altered('webhook-signature', `v1,${flipByte(signature.slice(3), 5)}`))).toThrow(WebhookVerificationError);
    expect(() => verify(`whsec_${randomBytes(32).toString('base64')}`, req)).toThrow(WebhookVerificationError);
  });

  it('keeps webhook-id across the retries of one delivery; each attempt verifies', async () => {
    const { secret } = await standardDestination();
    stack.receiver.respond = (_req, index) => (index === 0 ? { status: 503, body: 'busy' } : { status: 200, body: 'ok' });
    const { deliveryId, requests } = await deliver({ retry: true });
    expect(requests).toHaveLength(2);
    expect(requests.map((r) => r.headers['webhook-id'])).toEqual([deliveryId, deliveryId]);
    for (const req of requests) expect(verify(secret, req)).toEqual({ retry: true });
    // A second event is another delivery: another id.
    const next = await deliver({ retry: false });
    expect(next.requests[0].headers['webhook-id']).toBe(next.deliveryId);
    expect(next.deliveryId).not.toBe(deliveryId);
  });

  it('during a rotation overlap carries both signatures in the one header: the old and the new secret each verify', async () => {
    const { id, secret: oldSecret } = await standardDestination();
    const newSecret = `whsec_${randomBytes(32).toString('base64')}`;
    await rotateSigningSecret(scene.ctx(), id, { signing_secret: newSecret, overlap_seconds: 3600 });

    const during = (await deliver({ phase: 'overlap' })).requests[0];
    const signatures = (during.headers['webhook-signature'] as string).split(' ');
    expect(signatures).toHaveLength(2);
    for (const s of signatures) expect(s).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verify(oldSecret, during)).toEqual({ phase: 'overlap' });
    expect(verify(newSecret, during)).toEqual({ phase: 'overlap' });
    expect(() => verify(oldSecret, during, flipByte(during.body, 3))).toThrow(WebhookVerificationError);
    expect(() => verify(newSecret, during, flipByte(during.body, 3))).toThrow(WebhookVerificationError);

    // Cutting over (a rotation without overlap) leaves one signature: only the newest secret verifies.
    const newest = `whsec_${randomBytes(48).toString('base64')}`;
    await rotateSigningSecret(scene.ctx(), id, { signing_secret: newest, overlap_seconds: 0 });
    const after = (await deliver({ phase: 'after' })).requests[0];
    expect((after.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
    expect(verify(newest, after)).toEqual({ phase: 'after' });
    expect(() => verify(newSecret, after)).toThrow(WebhookVerificationError);
    expect(() => verify(oldSecret, after)).toThrow(WebhookVerificationError);
  });

  it('signs with a secret the user supplies (24 to 64 bytes)', async () => {
    for (const bytes of [24, 64]) {
      resetReceiver(stack.receiver);
      scene = await createScene(stack.t.container);
      const given = `whsec_${randomBytes(bytes).toString('base64')}`;
      await standardDestination(given);
      const [req] = (await deliver({ bytes })).requests;
      expect(verify(given, req)).toEqual({ bytes });
    }
  });

  it('switching an existing destination to standard signs every later delivery in that scheme; back to service, the service headers return', async () => {
    const created = await createDestination(scene.ctx(), { name: 'Switch', type: 'webhook', webhook_url: stack.receiver.url, retry_policy: FAST_RETRIES, signing_secret: 'a-service-secret-that-is-not-base64!' });
    await createLink(scene.ctx(), scene.endpoint.id, { destination_id: created.id });
    // The old secret cannot sign in the new scheme: a new one is generated and shown once.
    const switched = await updateDestination(scene.ctx(), created.id, { signature_scheme: 'standard' });
    expect(switched).toMatchObject({ signature_scheme: 'standard', signing_secret: expect.stringMatching(/^whsec_/) });
    const [req] = (await deliver({ switched: true })).requests;
    expect(verify(switched.signing_secret!, req)).toEqual({ switched: true });

    const back = await updateDestination(scene.ctx(), created.id, { signature_scheme: 'service' });
    expect(back).toMatchObject({ signature_scheme: 'service', signing_secret: null });
    const [again] = (await deliver({ switched: false })).requests;
    expect(again.headers['webhook-signature']).toBeUndefined();
    expect(again.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
  });
});
