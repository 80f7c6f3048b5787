import WebSocket from 'ws';
import { type ApiServer, startApiServer } from '../../src/http/server';
import { Transform } from '../../src/transforms/transform.entity';
import { gql, rest, tokenFor } from '../support/api';
import { hubSignature, postHook } from '../support/ingress-helpers';
import { attemptsOf, createScene, type DeliveryStack, resetReceiver, type Scene, sql, startDeliveryStack, waitForDeliveries, workflowResult } from '../delivery/harness';
import { linkEndpoint, createDestination } from '../support/factories';

/** Numbers past double precision, key order, escapes and whitespace, as a sender might write them. */
const BODY = '{ "id": 12345678901234567890, "amount": 1.10, "z": "caf\\u00e9 \\"q\\"",\n  "a": [1e2, -0, 0.1000000000000000055511151231257827] }\n';

describe('payload fidelity: the bytes a sender posted are what goes out and what the API shows', () => {
  let stack: DeliveryStack;
  let api: ApiServer;
  let scene: Scene;
  let token: string;

  beforeAll(async () => {
    stack = await startDeliveryStack();
    api = await startApiServer(stack.t.container, 0, '127.0.0.1');
  });
  afterAll(async () => {
    await api?.close();
    await stack?.close();
  });
  beforeEach(async () => {
    resetReceiver(stack.receiver);
    scene = await createScene(stack.t.container);
    token = await tokenFor(stack.t.container, scene.user.id);
  });

  async function ingest(): Promise<string> {
    const res = await postHook(api.url, scene.endpoint.slug, BODY, hubSignature(scene.signingSecret, BODY));
    expect(res.status).toBe(202);
    return res.body.event_id!;
  }

  async function deliver(eventId: string) {
    const [delivery] = await waitForDeliveries(stack.t.container, eventId, 1);
    expect(await workflowResult(stack.t.container, delivery.id)).toBe('success');
    return delivery;
  }

  it('a webhook destination without a transform receives the body byte for byte, and payload_sent keeps it', async () => {
    await scene.destination(stack.receiver.url);
    const delivery = await deliver(await ingest());
    expect(stack.receiver.requests[0].body).toBe(BODY);
    const [stored] = await sql<{ text: string }>(stack.t.container, 'select payload_sent::text as text from delivery_attempts where delivery_id = ?', [delivery.id]);
    expect(stored.text).toBe(BODY);
  });

  it('GET /v1/events/{id} and GraphQL answer the payload exactly as sent', async () => {
    const eventId = await ingest();
    const one = await rest(api.url, 'GET', `/v1/events/${eventId}`, { token, projectId: scene.project.id });
    expect(one.status).toBe(200);
    expect(one.headers.get('content-type')).toMatch(/^application\/json/);
    expect(one.text).toContain(`"payload":${BODY}`);
    expect(one.body.id).toBe(eventId);

    const single = await gql(api.url, 'query($id: ID!) { event(id: $id) { id payload } }', { id: eventId }, { token, projectId: scene.project.id });
    expect(single.errors).toBeUndefined();
    expect(single.text).toContain(`"payload":${BODY}`);
    const list = await gql(api.url, '{ events(limit: 5) { data { payload } } }', {}, { token, projectId: scene.project.id });
    expect(list.errors).toBeUndefined();
    expect(list.text).toContain(`"payload":${BODY}`);
  });

  it('the live eventReceived subscription sends the payload exactly as sent (the raw message text)', async () => {
    const socket = new WebSocket(`${api.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    const messages: string[] = [];
    socket.on('message', (data: Buffer) => messages.push(data.toString()));
    const waitFor = async (match: (m: string) => boolean) => {
      for (let i = 0; i < 200 && !messages.some(match); i++) await new Promise((r) => setTimeout(r, 50));
      return messages.find(match);
    };
    try {
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}`, projectId: scene.project.id } }));
      expect(await waitFor((m) => m.includes('"connection_ack"'))).toBeDefined();
      socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { eventReceived { id payload } }' } }));
      // The feed is live once the subscription is registered; events ingested before it are not replayed.
      await new Promise((r) => setTimeout(r, 500));
      const eventId = await ingest();
      const next = await waitFor((m) => m.includes('"next"') && m.includes(eventId));
      expect(next).toContain(`"payload":${BODY}`);
    } finally {
      socket.close();
    }
  });

  it('with a transform, the transformed value is sent (JSONata works on doubles, docs/templates.md)', async () => {
    const em = stack.t.container.orm.em.fork();
    const transform = em.create(Transform, { project: scene.project.id, name: 'tx', expression: '{ "id": id }' });
    await em.flush();
    const destination = await createDestination(stack.t.container, em, scene.project, { webhookUrl: stack.receiver.url });
    await linkEndpoint(em, scene.endpoint, destination, { transform: transform.id as never });
    const delivery = await deliver(await ingest());
    expect(stack.receiver.requests[0].body).toBe('{"id":12345678901234567000}');
    expect((await attemptsOf(stack.t.container, delivery.id))[0].payload_sent).toEqual({ id: 12345678901234567000 });
  });
});
