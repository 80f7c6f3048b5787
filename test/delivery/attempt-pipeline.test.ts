import { createHmac } from 'node:crypto';
import { MessageTemplate } from '../../src/templates/message-template.entity';
import { Transform } from '../../src/transforms/transform.entity';
import { createDestination, insertEvent, linkEndpoint } from '../support/factories';
import type { TestContainer } from '../support/test-env';
import {
  attemptsOf,
  createScene,
  deliveriesOf,
  type DeliveryStack,
  resetReceiver,
  type Scene,
  startDeliveryStack,
  waitForDeliveries,
  workflowResult,
} from './harness';
import type { Receiver } from './receiver';

/** Set, the renderer throws it: stands for a bug in our code (no known input makes it throw), not a template error. */
let mockRenderBug: Error | null = null;
jest.mock('../../src/formatting/index', () => {
  const actual = jest.requireActual('../../src/formatting/index');
  return {
    ...actual,
    renderMessage: (...args: Parameters<typeof actual.renderMessage>) => {
      if (mockRenderBug) throw mockRenderBug;
      return actual.renderMessage(...args);
    },
  };
});

/** Set, selecting a routing rule throws it: stands for a bug in our code, not a rule the user saved (rules are validated on save). */
let mockRouteBug: Error | null = null;
jest.mock('../../src/routing/select-route', () => {
  const actual = jest.requireActual('../../src/routing/select-route');
  return {
    ...actual,
    selectRoute: (...args: Parameters<typeof actual.selectRoute>) => {
      if (mockRouteBug) throw mockRouteBug;
      return actual.selectRoute(...args);
    },
  };
});

describe('what one attempt sends and records', () => {
  let stack: DeliveryStack;
  let t: TestContainer;
  let receiver: Receiver;
  let scene: Scene;

  beforeAll(async () => {
    stack = await startDeliveryStack();
    ({ t, receiver } = stack);
  });

  afterAll(() => stack?.close());

  beforeEach(async () => {
    resetReceiver(receiver);
    scene = await createScene(t.container);
  });

  /** Inserts an event and waits for its single delivery's workflow to end. */
  async function deliverOne(fields: Parameters<typeof insertEvent>[2] = {}) {
    const eventId = await insertEvent(t.container, scene.endpoint, fields);
    const [delivery] = await waitForDeliveries(t.container, eventId, 1);
    const result = await workflowResult(t.container, delivery.id);
    return { eventId, delivery, result, attempts: await attemptsOf(t.container, delivery.id) };
  }

  async function transform(expression: string): Promise<Transform> {
    const em = t.container.orm.em.fork();
    const row = em.create(Transform, { project: scene.project.id, name: 'tx', expression });
    await em.flush();
    return row;
  }

  it("applies the link's transform and signs the body it sends", async () => {
    const em = t.container.orm.em.fork();
    const destination = await createDestination(t.container, em, scene.project, { webhookUrl: receiver.url, signingSecret: 'a-destination-secret-0123456789' });
    await linkEndpoint(em, scene.endpoint, destination, { transform: (await transform('{ "who": user.name }')).id as never });
    const { result, attempts } = await deliverOne({ payload: { user: { name: 'ada' } } });
    expect(result).toBe('success');
    const [req] = receiver.requests;
    expect(JSON.parse(req.body)).toEqual({ who: 'ada' });
    expect(attempts[0].payload_sent).toEqual({ who: 'ada' });
    const expected = createHmac('sha256', 'a-destination-secret-0123456789').update(`${req.headers['x-service-timestamp']}.${req.body}`).digest('hex');
    expect(req.headers['x-service-signature']).toBe(`sha256=${expected}`);
  });

  it('a routing rule picks its own transform', async () => {
    const em = t.container.orm.em.fork();
    const destination = await createDestination(t.container, em, scene.project, { webhookUrl: receiver.url });
    const upper = await transform('{ "kind": "urgent" }');
    await linkEndpoint(em, scene.endpoint, destination, {
      routingRules: [{ name: 'urgent', logic: 'AND', conditions: [{ field: 'body.level', operator: 'eq', value: 'high' }], transform_id: upper.id }],
    });
    await deliverOne({ payload: { level: 'high' } });
    await deliverOne({ payload: { level: 'low' } });
    expect(receiver.requests.map((r) => JSON.parse(r.body))).toEqual([{ kind: 'urgent' }, { level: 'low' }]);
  });

  it('a failing transform fails the delivery at once, with no retry, into the dead-letter queue', async () => {
    const em = t.container.orm.em.fork();
    const destination = await createDestination(t.container, em, scene.project, { webhookUrl: receiver.url });
    await linkEndpoint(em, scene.endpoint, destination, { transform: (await transform('$error("nope")')).id as never });
    const { result, attempts, eventId } = await deliverOne();
    expect(result).toBe('failed');
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ status: 'failed', status_code: null });
    expect(attempts[0].error).toMatch(/nope/);
    expect((await deliveriesOf(t.container, eventId))[0].dead_lettered_at).not.toBeNull();
    expect(receiver.requests).toHaveLength(0);
  });

  it('an unexpected exception while rendering is a failed attempt: retried per the policy, then dead-lettered with the reason', async () => {
    mockRenderBug = new TypeError("Cannot read properties of undefined (reading 'fields')");
    try {
      await scene.destination(receiver.url, { type: 'chat_b', retryPolicy: { max_attempts: 2, backoff: [1] } });
      const { result, attempts, eventId } = await deliverOne();
      expect(result).toBe('failed');
      expect(attempts.map((a) => [a.attempt_number, a.status, a.status_code])).toEqual([[1, 'retrying', null], [2, 'failed', null]]);
      for (const a of attempts) expect(a.error).toBe("Internal error while formatting the message (not a template or transform error): TypeError: Cannot read properties of undefined (reading 'fields')");
      expect((await deliveriesOf(t.container, eventId))[0].dead_lettered_at).not.toBeNull();
      expect(receiver.requests).toHaveLength(0);
    } finally {
      mockRenderBug = null;
    }
  });

  it('an unexpected exception while selecting a routing rule is a failed attempt: retried per the policy, then dead-lettered with the reason', async () => {
    mockRouteBug = new RangeError('Maximum call stack size exceeded');
    try {
      const em = t.container.orm.em.fork();
      const destination = await createDestination(t.container, em, scene.project, { webhookUrl: receiver.url, retryPolicy: { max_attempts: 2, backoff: [1] } });
      await linkEndpoint(em, scene.endpoint, destination, {
        routingRules: [{ name: 'urgent', logic: 'AND', conditions: [{ field: 'body.level', operator: 'eq', value: 'high' }], transform_id: (await transform('{ "kind": "urgent" }')).id }],
      });
      const { result, attempts, eventId } = await deliverOne({ payload: { level: 'high' } });
      expect(result).toBe('failed');
      expect(attempts.map((a) => [a.attempt_number, a.status, a.status_code])).toEqual([[1, 'retrying', null], [2, 'failed', null]]);
      for (const a of attempts) expect(a.error).toBe('Internal error while selecting a routing rule: RangeError: Maximum call stack size exceeded');
      expect((await deliveriesOf(t.container, eventId))[0].dead_lettered_at).not.toBeNull();
      expect(receiver.requests).toHaveLength(0);
    } finally {
      mockRouteBug = null;
    }
  });

  it("renders a chat destination's template and sends the platform's shape", async () => {
    const em = t.container.orm.em.fork();
    const destination = await createDestination(t.container, em, scene.project, { type: 'chat_b', webhookUrl: receiver.url });
    const template = em.create(MessageTemplate, { project: scene.project.id, name: 't', config: { title: 'Push to {{ .Payload.repo }}' } });
    await em.flush();
    await linkEndpoint(em, scene.endpoint, destination, { template: template.id as never });
    const { result } = await deliverOne({ payload: { repo: 'relay' }, eventType: 'push' });
    expect(result).toBe('success');
    expect(JSON.parse(receiver.requests[0].body).embeds[0].title).toBe('Push to relay');
  });

  it("a chat platform's 429 is waited out (at least 1 s), recorded as rate_limited and not counted towards max_attempts", async () => {
    receiver.respond = (_req, i) =>
      i === 0 ? { status: 429, body: JSON.stringify({ retry_after: 0.3, global: false }), headers: { 'content-type': 'application/json' } } : { status: 200, body: '{}' };
    // Two attempts, a minute apart: the schedule's end is a minute away, far beyond the wait.
    await scene.destination(receiver.url, { type: 'chat_b', retryPolicy: { max_attempts: 2, backoff: [60] } });
    const { result, attempts } = await deliverOne();
    expect(result).toBe('success');
    expect(attempts.map((a) => [a.attempt_number, a.status, a.status_code])).toEqual([
      [1, 'rate_limited', 429],
      [2, 'success', 200],
    ]);
    expect(attempts[0].error).toBe('rate limited by the chat_b webhook URL: retry after 1000 ms; waited out, not counted towards max_attempts');
    const wait = new Date(attempts[0].next_retry_at!).getTime() - new Date(attempts[0].created_at).getTime();
    expect(wait).toBeGreaterThanOrEqual(900);
    expect(receiver.requests).toHaveLength(2);
  });

  it("a webhook's 429 is a failure whose retry waits at least its Retry-After", async () => {
    receiver.respond = (_req, i) => (i === 0 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 200 });
    await scene.destination(receiver.url, { retryPolicy: { max_attempts: 2, backoff: [1] } });
    const { attempts } = await deliverOne();
    expect(attempts.map((a) => [a.status, a.status_code])).toEqual([['retrying', 429], ['success', 200]]);
    const wait = new Date(attempts[0].next_retry_at!).getTime() - new Date(attempts[0].created_at).getTime();
    expect(wait).toBeGreaterThan(1500);
  });
});
