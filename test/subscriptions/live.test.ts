import type { Client } from 'graphql-ws';
import { uuidv7, uuidv7Millis } from '../../src/common/ids';
import { NOTIFY } from '../../src/common/notify-channels';
import { LiveFeed } from '../../src/subscriptions/live-feed';
import { WS_UNAUTHORIZED } from '../../src/subscriptions/ws-hooks';
import { startTestApi, type TestApi, tokenFor } from '../support/api';
import { insertDelivery } from '../support/delivery-fixtures';
import { createDestination, createEndpoint, createWorkspace, insertEvent, type Workspace } from '../support/factories';
import { eventually, liveClient, subscribe } from '../support/live-client';
import type { WebhookEndpoint } from '../../src/endpoints/endpoint.entity';

const EVENTS = 'subscription($projectId: ID, $endpointId: ID) { eventReceived(projectId: $projectId, endpointId: $endpointId) { id endpointId projectId eventType payload status } }';
const ATTEMPTS = 'subscription($eventId: ID) { deliveryAttemptUpdated(eventId: $eventId) { id deliveryId eventId attemptNumber status statusCode } }';

describe('GraphQL subscriptions over graphql-ws', () => {
  let api: TestApi;
  let ws: Workspace;
  let other: Workspace;
  let token: string;
  let otherToken: string;
  let endpointA: WebhookEndpoint;
  let endpointB: WebhookEndpoint;
  let theirs: WebhookEndpoint;
  const clients: Client[] = [];

  const open = (t?: string) => {
    const c = liveClient(api.baseUrl, t);
    clients.push(c.client);
    return c;
  };
  const feed = () => LiveFeed.for(api.container);

  beforeAll(async () => {
    api = await startTestApi();
    const em = api.container.orm.em.fork();
    ws = await createWorkspace(em);
    other = await createWorkspace(em);
    token = await tokenFor(api.container, ws.user.id);
    otherToken = await tokenFor(api.container, other.user.id);
    endpointA = (await createEndpoint(api.container, em, ws.project)).endpoint;
    endpointB = (await createEndpoint(api.container, em, ws.project)).endpoint;
    theirs = (await createEndpoint(api.container, em, other.project)).endpoint;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await api.close();
  });

  it('refuses a connection without a valid credential, with the reason', async () => {
    const anonymous = open();
    subscribe(anonymous.client, EVENTS);
    expect(await anonymous.closed).toMatchObject({ code: WS_UNAUTHORIZED, reason: expect.stringMatching(/^unauthenticated: Authentication required/) });
    const bad = open('not-a-token');
    subscribe(bad.client, EVENTS);
    expect((await bad.closed).code).toBe(WS_UNAUTHORIZED);
  });

  it('delivers new events of the subscribed project and endpoint only, filtered ones included', async () => {
    const { client } = open(token);
    const all = subscribe(client, EVENTS, { projectId: ws.project.id });
    const onlyB = subscribe(client, EVENTS, { endpointId: endpointB.id, projectId: ws.project.id });
    await eventually(() => feed().subscriberCount === 2);

    await insertEvent(api.container, theirs, { payload: { secret: 'theirs' } });
    const a = await insertEvent(api.container, endpointA, { eventType: 'push', payload: { n: 1 } });
    const b = await insertEvent(api.container, endpointB, { eventType: 'issue', payload: { n: 2 }, status: 'filtered' });

    expect((await all.next()).data.eventReceived).toEqual({ id: a, endpointId: endpointA.id, projectId: ws.project.id, eventType: 'push', payload: { n: 1 }, status: 'received' });
    // Filtered events send no NOTIFY: the feed's poll finds them.
    expect((await all.next()).data.eventReceived).toMatchObject({ id: b, status: 'filtered' });
    expect((await onlyB.next()).data.eventReceived.id).toBe(b);
    await all.dispose();
    await onlyB.dispose();
    await eventually(() => feed().subscriberCount === 0);
  });

  it('still sends events that commit out of id order or without a notification (the sweep)', async () => {
    const { client } = open(token);
    const sub = subscribe(client, EVENTS, { endpointId: endpointA.id });
    await eventually(() => feed().subscriberCount === 1);
    await new Promise((r) => setTimeout(r, 20));
    const notified = await insertEvent(api.container, endpointA, { payload: { n: 'notified' } });
    expect((await sub.next()).data.eventReceived.id).toBe(notified);
    // Made before `notified` (a slower writer), committed after it, and announced by nobody.
    const late = uuidv7(uuidv7Millis(notified) - 5);
    await api.container.orm.em.getConnection().execute(
      `insert into events (id, endpoint_id, project_id, organization_id, payload, headers, status) values (?, ?, ?, ?, '{"n":"late"}', '{}', 'filtered')`,
      [late, endpointA.id, ws.project.id, ws.organization.id],
    );
    expect((await sub.next()).data.eventReceived).toMatchObject({ id: late, payload: { n: 'late' }, status: 'filtered' });
    await sub.dispose();
    await eventually(() => feed().subscriberCount === 0);
  });

  it('scopes subscriptions like queries: another organization’s project or endpoint is not found', async () => {
    const { client } = open(otherToken);
    const res = await subscribe(client, EVENTS, { projectId: ws.project.id }).next();
    expect(res.errors?.[0].extensions).toMatchObject({ code: 'not_found' });
    const byEndpoint = await subscribe(client, EVENTS, { endpointId: endpointA.id }).next();
    expect(byEndpoint.errors?.[0].extensions).toMatchObject({ code: 'not_found' });
  });

  it('delivers delivery-attempt updates announced on relay_attempts, filtered by event', async () => {
    const em = api.container.orm.em.fork();
    const dest = await createDestination(api.container, em, ws.project, { webhookUrl: 'http://127.0.0.1:9/x' });
    const eventId = await insertEvent(api.container, endpointA);
    const otherEvent = await insertEvent(api.container, endpointA);
    const { client } = open(token);
    const sub = subscribe(client, ATTEMPTS, { eventId });
    await eventually(() => feed().subscriberCount === 1);

    const noise = await insertDelivery(api.container, { eventId: otherEvent, destinationId: dest.id, attempts: [{ status: 'failed', statusCode: 500 }] });
    const mine = await insertDelivery(api.container, { eventId, destinationId: dest.id, status: 'retrying', attempts: [{ status: 'retrying', statusCode: 503 }] });
    const knex = api.container.orm.em.getConnection().getKnex();
    await knex.raw('select pg_notify(?, ?), pg_notify(?, ?)', [NOTIFY.attemptsChanged, noise.attemptIds[0], NOTIFY.attemptsChanged, mine.attemptIds[0]]);

    expect((await sub.next()).data.deliveryAttemptUpdated).toEqual({
      id: mine.attemptIds[0], deliveryId: mine.deliveryId, eventId, attemptNumber: 1, status: 'retrying', statusCode: 503,
    });
    await sub.dispose();
  });
});
