import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../src/common/errors';
import { type ProjectContext, systemProjectContext } from '../../src/common/request-context';
import { Destination } from '../../src/destinations/destination.entity';
import {
  clearDestinationSecret,
  destinationSigningSecrets,
  rotateDestinationSecret,
} from '../../src/destinations/destination-secret.service';
import { closeHttpAgents } from '../../src/sending/http-client';
import { sendWebhook } from '../../src/sending/webhook.sender';
import { createDestination, createWorkspace, type Workspace } from '../support/factories';
import { createTestContainer, type TestContainer } from '../support/test-env';
import { customerVerifies, startReceiver } from './receiver';

let tc: TestContainer;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let em: EntityManager;
let ws: Workspace;
let ctx: ProjectContext;

beforeAll(async () => {
  tc = await createTestContainer();
  receiver = await startReceiver();
});
beforeEach(async () => {
  em = tc.container.orm.em.fork();
  ws = await createWorkspace(em);
  ctx = systemProjectContext(tc.container, em, ws.project);
  receiver.received.length = 0;
});
afterAll(async () => {
  await receiver?.close();
  await tc?.close();
  await closeHttpAgents();
});

const OLD = 'whsec_old_0123456789abcdef';
const NEW = 'whsec_new_0123456789abcdef';

/** Reads the destination afresh (as the send activity does) and sends one delivery with its secrets at `now`. */
async function deliver(destinationId: string, now = new Date()) {
  const destination = await tc.container.orm.em.fork().findOneOrFail(Destination, destinationId);
  const signing = destinationSigningSecrets(destination, tc.container.secrets, now);
  const result = await sendWebhook({
    url: receiver.url,
    payload: { n: receiver.received.length },
    headerPrefix: ws.project.headerPrefix,
    eventId: 'e',
    endpointId: 'p',
    signing,
    timeoutMs: 5000,
    allowPrivateNetworks: true,
    now: () => now.getTime(),
  });
  expect(result.ok).toBe(true);
  const got = receiver.received.at(-1)!;
  const header = (name: string) => got.headers[`x-service-${name}`] as string | undefined;
  return {
    headers: got.headers,
    verifies: (secret: string, which: 'signature' | 'signature-previous' = 'signature') =>
      customerVerifies(secret, header('timestamp'), header(which), got.rawBody, now.getTime() / 1000),
    has: (name: string) => header(name) !== undefined,
  };
}

async function expectAppError(promise: Promise<unknown>, status: number, code: string): Promise<AppError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect({ status: (err as AppError).status, code: (err as AppError).code }).toEqual({ status, code });
  return err as AppError;
}

describe('rotateDestinationSecret', () => {
  it('signs with both secrets during the overlap, and only the new one after it', async () => {
    const dest = await createDestination(tc.container, em, ws.project, { webhookUrl: receiver.url, signingSecret: OLD });
    const before = Date.now();
    const state = await rotateDestinationSecret(ctx, dest.id, { signing_secret: NEW, overlap_seconds: 3600 });
    expect(state.destination_id).toBe(dest.id);
    expect(state.signing_secret_set).toBe(true);
    const expires = Date.parse(state.previous_secret_expires_at!);
    expect(expires).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 3_600_000);

    const during = await deliver(dest.id);
    expect(during.verifies(NEW)).toBe(true);
    expect(during.verifies(OLD, 'signature-previous')).toBe(true);
    expect(during.verifies(OLD)).toBe(false);

    const after = await deliver(dest.id, new Date(expires + 1000));
    expect(after.verifies(NEW)).toBe(true);
    expect(after.has('signature-previous')).toBe(false);
  });

  it('defaults the overlap to one day', async () => {
    const dest = await createDestination(tc.container, em, ws.project, { webhookUrl: receiver.url, signingSecret: OLD });
    const state = await rotateDestinationSecret(ctx, dest.id, { signing_secret: NEW });
    expect(Date.parse(state.previous_secret_expires_at!) - Date.now()).toBeGreaterThan(86_400_000 - 60_000);
    expect(Date.parse(state.previous_secret_expires_at!) - Date.now()).toBeLessThanOrEqual(86_400_000);
  });

  it('cuts over at once with overlap_seconds 0', async () => {
    const dest = await createDestination(tc.container, em, ws.project, { webhookUrl: receiver.url, signingSecret: OLD });
    const state = await rotateDestinationSecret(ctx, dest.id, { signing_secret: NEW, overlap_seconds: 0 });
    expect(state.previous_secret_expires_at).toBeNull();
    const sent = await deliver(dest.id);
    expect(sent.verifies(NEW)).toBe(true);
    expect(sent.has('signature-previous')).toBe(false);
  });

  it('starts signing a destination that had no secret, with no previous signature', async () => {
    const dest = await createDestination(tc.container, em, ws.project, { webhookUrl: receiver.url });
    expect((await deliver(dest.id)).has('signature')).toBe(false);
    const state = await rotateDestinationSecret(ctx, dest.id, { signing_secret: NEW, overlap_seconds: 3600 });
    expect(state.previous_secret_expires_at).toBeNull();
    const sent = await deliver(dest.id);
    expect(sent.verifies(NEW)).toBe(true);
    expect(sent.has('signature-previous')).toBe(false);
  });

  it('keeps the secret sealed at rest', async () => {
    const dest = await createDestination(tc.container, em, ws.project, { webhookUrl: receiver.url });
    await rotateDestinationSecret(ctx, dest.id, { signing_secret: NEW });
    const rows = await tc.container.orm.em.fork().getConnection().execute<Array<{ signing_secret_enc: string }>>(
      'select signing_secret_enc from destinations where id = ?',
      [dest.id],
    );
    expect(rows[0].signing_secret_enc).toMatch(/^v1\./);
    expect(rows[0].signing_secret_enc).not.toContain(NEW);
  });

  it.each([
    [{ signing_secret: 'short' }, 'signing_secret'],
    [{}, 'signing_secret'],
    [{ signing_secret: NEW, overlap_seconds: 604_801 }, 'overlap_seconds'],
    [{ signing_secret: NEW, overlap_seconds: -1 }, 'overlap_seconds'],
    [{ signing_secret: NEW, overlap_seconds: 1.5 }, 'overlap_seconds'],
    [{ signing_secret: NEW, overlap_seconds: '60' }, 'overlap_seconds'],
  ])('rejects %p with a 400 naming %s', async (input, field) => {
    const dest = await createDestination(tc.container, em, ws.project, { webhookUrl: receiver.url, signingSecret: OLD });
    const err = await expectAppError(rotateDestinationSecret(ctx, dest.id, input as never), 400, 'invalid_input');
    expect(err.details?.field).toBe(field);
  });

  it('accepts the maximum overlap', async () => {
    const dest = await createDestination(tc.container, em, ws.project, { webhookUrl: receiver.url, signingSecret: OLD });
    const state = await rotateDestinationSecret(ctx, dest.id, { signing_secret: NEW, overlap_seconds: 604_800 });
    expect(state.previous_secret_expires_at).not.toBeNull();
  });

  it('refuses chat destinations (400) and unknown or foreign destinations (404)', async () => {
    const chat = await createDestination(tc.container, em, ws.project, { type: 'chat_b', webhookUrl: 'https://chat.invalid/x' });
    await expectAppError(rotateDestinationSecret(ctx, chat.id, { signing_secret: NEW }), 400, 'signing_not_supported');
    await expectAppError(rotateDestinationSecret(ctx, '0190e6c8-0000-7000-8000-0000000000ff', { signing_secret: NEW }), 404, 'not_found');
    await expectAppError(rotateDestinationSecret(ctx, 'not-a-uuid', { signing_secret: NEW }), 404, 'not_found');
    const other = await createWorkspace(em);
    const foreign = await createDestination(tc.container, em, other.project, { webhookUrl: receiver.url, signingSecret: OLD });
    await expectAppError(rotateDestinationSecret(ctx, foreign.id, { signing_secret: NEW }), 404, 'not_found');
  });
});

describe('clearDestinationSecret', () => {
  it('removes every signature header from later deliveries, even during an overlap', async () => {
    const dest = await createDestination(tc.container, em, ws.project, { webhookUrl: receiver.url, signingSecret: OLD });
    await rotateDestinationSecret(ctx, dest.id, { signing_secret: NEW, overlap_seconds: 3600 });
    const state = await clearDestinationSecret(ctx, dest.id);
    expect(state).toEqual({ destination_id: dest.id, signing_secret_set: false, previous_secret_expires_at: null });
    const sent = await deliver(dest.id);
    expect(Object.keys(sent.headers).filter((h) => /timestamp|signature/.test(h))).toEqual([]);
    expect(sent.headers['x-service-event-id']).toBe('e');
  });
});
