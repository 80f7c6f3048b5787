import { randomBytes } from 'node:crypto';
import { MAX_WAITS_PER_ATTEMPT } from '../../src/deliveries/retry-schedule';
import { gql, rest } from '../support/api';
import { PASSWORD, uniqueEmail } from '../support/accounts';
import { type FakePlatforms, startFakePlatforms } from '../support/fake-platforms';
import { postSigned } from '../support/ingress-helpers';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestDatabase, type TestDatabase } from '../support/test-env';
import { type Receiver, startReceiver } from './receiver';

/**
 * A receiver controls only its own deliveries, within bounds (docs/receiver-signals.md), seen from
 * tenants' side: `relay start` as a user runs it (API, worker, Temporal), chat platforms as local fakes at the
 * configured CHAT_*_API_BASE_URL, and every resource made, every event sent and every attempt read through the
 * public API.
 */

interface Attempt {
  attempt_number: number;
  status: string;
  status_code: number | null;
  error: string | null;
  next_retry_at: string | null;
}

interface Tenant {
  token: string;
  projectId: string;
  /** Creates a destination and links it to the tenant's endpoint; returns its id. */
  destination(body: Record<string, unknown>): Promise<string>;
  /** Sends an event to the tenant's endpoint; returns its id. */
  send(payload?: unknown): Promise<string>;
  /** The event's single delivery, once the fan-out made it. */
  deliveryOf(eventId: string): Promise<{ id: string; status: string; dead_lettered_at: string | null }>;
  attempts(deliveryId: string): Promise<Attempt[]>;
}

describe('a receiver controls only its own deliveries (relay start, fake chat platforms, the public API)', () => {
  let db: TestDatabase;
  let fakes: FakePlatforms;
  let service: ServiceProcess;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    fakes = await startFakePlatforms();
    service = await startServiceProcess({ databaseUrl: db.url, env: fakes.env });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await Promise.all(receivers.map((r) => r.close()));
    await fakes?.close();
    await db?.drop();
  });

  beforeEach(() => fakes.reset());

  async function receiver(respond: Receiver['respond']): Promise<Receiver> {
    const r = await startReceiver();
    r.respond = respond;
    receivers.push(r);
    return r;
  }

  /** Polls until `check` gives something (a non-empty list, true, an object); fails naming `what` after a minute (a wait that never ends is the defect itself). */
  async function until<T>(what: string, check: () => Promise<T | null | undefined | false>): Promise<T> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const value = await check();
      if (value && !(Array.isArray(value) && value.length === 0)) return value;
      if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** A new organization (sign-up), its Default project and an endpoint, as a tenant sets them up. */
  async function tenant(label: string): Promise<Tenant> {
    const base = service.baseUrl;
    const signup = await rest(base, 'POST', '/v1/auth/signup', { body: { email: uniqueEmail(label), password: PASSWORD } });
    expect(signup.status).toBe(201);
    const token: string = signup.body.access_token;
    const projectId: string = (await rest(base, 'GET', '/v1/projects', { token })).body.data[0].id;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await rest(base, method, path, { token, projectId, body });
      if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
      return res.body;
    };
    const secret = randomBytes(16).toString('hex');
    const endpoint = await call('POST', '/v1/endpoints', { name: `${label} source`, signing_secret: secret });
    return {
      token,
      projectId,
      destination: async (body) => {
        const { id } = await call('POST', '/v1/destinations', { name: `${label} ${String(body.type)}`, ...body });
        await call('POST', `/v1/endpoints/${endpoint.id}/destinations`, { destination_id: id });
        return id;
      },
      send: async (payload = { hello: label }) => {
        const res = await postSigned(base, endpoint.slug, secret, payload);
        expect(res.status).toBe(202);
        return res.body.event_id!;
      },
      deliveryOf: (eventId) => until(`a delivery of ${eventId}`, async () => (await call('GET', `/v1/deliveries?event_id=${eventId}`)).data[0]),
      attempts: async (deliveryId) => {
        const page = await call('GET', `/v1/attempts?delivery_id=${deliveryId}&limit=200`);
        return [...page.data].reverse(); // newest first on the wire
      },
    };
  }

  const chatB429 = (retryAfter: number, global: boolean) => ({
    status: 429,
    headers: { 'content-type': 'application/json', 'retry-after': String(retryAfter), ...(global ? { 'x-ratelimit-global': 'true', 'x-ratelimit-scope': 'global' } : {}) },
    body: JSON.stringify({ message: 'You are being rate limited.', retry_after: retryAfter, global, code: 0 }),
  });

  it("a tenant's own webhook URL answering a \"global\" 429 pauses no one else's chat_b deliveries", async () => {
    const a = await tenant('a');
    const own = await receiver(() => chatB429(120, true));
    await a.destination({ type: 'chat_b', webhook_url: own.url });
    const aEvent = await a.send();
    const aDelivery = await a.deliveryOf(aEvent);
    const [waited] = await until('the 429 on record', async () => (await a.attempts(aDelivery.id)).filter((x) => x.status === 'rate_limited'));
    expect(waited).toMatchObject({ attempt_number: 1, status_code: 429 });
    expect(waited.error).toBe('rate limited by the chat_b webhook URL: retry after 120000 ms; waited out, not counted towards max_attempts');

    // Another organization's chat_b deliveries, through the configured platform API and to its own webhook URL, go at once.
    const b = await tenant('b');
    await b.destination({ type: 'chat_b', bot_token: fakes.chatB.botToken, channel_id: fakes.chatB.channel });
    await b.destination({ type: 'chat_b', webhook_url: fakes.chatB.webhookUrl });
    await b.send();
    await until("B's two messages at the platform", async () => fakes.chatB.delivered.length === 2);
    expect(fakes.chatB.delivered.map((r) => r.path).sort()).toEqual([`/api/v10/channels/${fakes.chatB.channel}/messages`, expect.stringMatching(/^\/api\/v10\/webhooks\//)].sort());
    // A's own delivery still waits its receiver's 120 s: one request so far.
    expect(own.requests).toHaveLength(1);
  });

  it("a global 429 from the platform's API for one bot token holds that token's deliveries, not another token's", async () => {
    const x = await tenant('x');
    const y = await tenant('y');
    await x.destination({ type: 'chat_b', bot_token: fakes.chatB.botToken, channel_id: fakes.chatB.channel });
    await y.destination({ type: 'chat_b', bot_token: fakes.chatB.otherBotToken, channel_id: fakes.chatB.channel });

    fakes.chatB.rateLimitNext(60, { global: true });
    const first = await x.deliveryOf(await x.send());
    await until("X's 429 on record", async () => (await x.attempts(first.id)).some((a) => a.status === 'rate_limited'));
    // X's next delivery is not even sent: the platform said this token waits.
    const second = await x.deliveryOf(await x.send());
    const [held] = await until("X's second delivery held", async () => (await x.attempts(second.id)).filter((a) => a.status === 'rate_limited'));
    expect(held.status_code).toBeNull();
    expect(held.error).toMatch(/^chat_b's global rate limit for this bot token lasts until .*; not sent; waited out, not counted towards max_attempts$/);
    expect(fakes.chatB.requests).toHaveLength(1);

    // Y's token is another bot: its delivery goes at once.
    const yDelivery = await y.deliveryOf(await y.send());
    await until("Y's message at the platform", async () => fakes.chatB.delivered.length === 1);
    expect(fakes.chatB.delivered[0].headers.authorization).toBe(`Bot ${fakes.chatB.otherBotToken}`);
    await until("Y's delivery a success", async () => (await y.attempts(yDelivery.id)).some((a) => a.status === 'success'));
  });

  /**
   * A receiver asking to wait no time at all, for ever: each answer waits the 1 s floor, is on record, and the delivery
   * is dead-lettered within its schedule. Schedule `{ max_attempts: 2, backoff: [3] }` ends 3 s after the delivery
   * was created: answers are waited out until then, the next one counts (attempt 1), and attempt 2 is the last.
   */
  const WAIT_NOW = [
    ['503 with Retry-After: 0', 'webhook', () => ({ status: 503, headers: { 'retry-after': '0' }, body: 'busy' }), 503],
    ['503 with a Retry-After date in the past', 'webhook', () => ({ status: 503, headers: { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }, body: 'busy' }), 503],
    ['a chat 429 with retry_after: 0', 'chat_b', () => chatB429(0, false), 429],
  ] as const;

  /** A destination of `type` to a receiver answering `answer` for ever, on `retry_policy`; one event, followed to its dead letter. */
  async function deadLetteredBy(type: string, answer: Receiver['respond'], retry_policy: { max_attempts: number; backoff: number[] }) {
    const t = await tenant(`${type}-${retry_policy.max_attempts}`);
    const r = await receiver(answer);
    await t.destination({ type, webhook_url: r.url, retry_policy });
    const eventId = await t.send();
    const delivery = await until('the delivery to end', async () => {
      const d = await t.deliveryOf(eventId);
      return d.status === 'failed' ? d : null;
    });
    expect(delivery.dead_lettered_at).not.toBeNull();
    return { t, delivery, requests: r.requests, attempts: await t.attempts(delivery.id) };
  }

  it.each(WAIT_NOW)('%s: a bounded number of requests, each on record, dead-lettered within the schedule', async (_name, type, answer, code) => {
    const { t, delivery, requests, attempts } = await deadLetteredBy(type, answer, { max_attempts: 2, backoff: [3] });
    // Every request the receiver got is an attempt in the API, numbered in order, all with its answer.
    expect(attempts).toHaveLength(requests.length);
    expect(attempts.map((a) => a.attempt_number)).toEqual(attempts.map((_, i) => i + 1));
    expect(attempts.every((a) => a.status_code === code)).toBe(true);
    // Two counted attempts (the schedule's), the waited-out answers between them.
    const counted = attempts.filter((a) => a.status !== 'rate_limited');
    expect(counted.map((a) => a.status)).toEqual(['retrying', 'failed']);
    expect(counted[1].error).toMatch(/; counted as a failed attempt: the wait would end after the retry schedule$/);
    expect(attempts.length).toBeLessThanOrEqual(2 * (MAX_WAITS_PER_ATTEMPT + 1));
    for (const a of attempts.filter((x) => x.status === 'rate_limited')) expect(a.error).toMatch(/; waited out, not counted towards max_attempts$/);

    // GraphQL lists the same attempts.
    const res = await gql(service.baseUrl, 'query($id: ID!) { delivery(id: $id) { status attempts { attemptNumber status statusCode } } }', { id: delivery.id }, { token: t.token, projectId: t.projectId });
    expect(res.data.delivery.attempts.map((a: { attemptNumber: number; status: string }) => [a.attemptNumber, a.status])).toEqual(attempts.map((a) => [a.attempt_number, a.status]));
  });

  it.each(WAIT_NOW)('%s with max_attempts: 1: one request, one failed attempt, dead-lettered', async (_name, type, answer, code) => {
    const { requests, attempts } = await deadLetteredBy(type, answer, { max_attempts: 1, backoff: [1] });
    expect(requests).toHaveLength(1);
    expect(attempts.map((a) => [a.attempt_number, a.status, a.status_code])).toEqual([[1, 'failed', code]]);
    expect(attempts[0].error).toMatch(/; counted as a failed attempt: the wait would end after the retry schedule$/);
  });
});
