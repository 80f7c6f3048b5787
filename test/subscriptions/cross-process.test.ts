import type { AppContainer } from '../../src/app/container';
import { createContainer } from '../../src/app/container';
import { createLogger } from '../../src/common/logger';
import { tokenFor } from '../support/api';
import { startReceiver } from '../delivery/receiver';
import { createDestination, createEndpoint, createWorkspace, linkEndpoint } from '../support/factories';
import { postSigned } from '../support/ingress-helpers';
import { eventually, liveClient, subscribe } from '../support/live-client';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestDatabase, type TestDatabase, testConfig } from '../support/test-env';

/**
 * Two processes on one database: a subscriber on A sees events ingested
 * through B's `POST /hooks/:slug` and the attempts B's worker records,
 * carried by PostgreSQL LISTEN/NOTIFY.
 */
describe('subscriptions across API processes', () => {
  let db: TestDatabase;
  let container: AppContainer;
  let a: ServiceProcess;
  let b: ServiceProcess;

  beforeAll(async () => {
    db = await createTestDatabase();
    const config = testConfig({ DATABASE_URL: db.url });
    container = await createContainer(config, createLogger('silent'));
    // A serves the API only; B is a whole service (API, ingress and a delivery worker).
    [a, b] = await Promise.all([startServiceProcess({ databaseUrl: db.url, command: 'api' }), startServiceProcess({ databaseUrl: db.url, command: 'start' })]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await container?.close();
    await db?.drop();
  });

  it('delivers an event received by process B to a subscriber on process A', async () => {
    const em = container.orm.em.fork();
    const ws = await createWorkspace(em);
    const { endpoint, signingSecret } = await createEndpoint(container, em, ws.project);
    const token = await tokenFor(container, ws.user.id);
    const { client } = liveClient(a.baseUrl, token);
    try {
      const sub = subscribe(client, 'subscription($p: ID) { eventReceived(projectId: $p) { id endpointId payload } }', { p: ws.project.id });
      // The subscription is live once A has LISTENed; until then B's events are
      // (correctly) not replayed to it, so keep sending until one arrives.
      const sent: string[] = [];
      const first = sub.next(15_000);
      const sender = setInterval(() => {
        void postSigned(b.baseUrl, endpoint.slug, signingSecret, { seq: sent.length }).then((r) => sent.push(r.status === 202 ? r.body.event_id! : `status ${r.status}`));
      }, 250);
      const got = await first.finally(() => clearInterval(sender));
      expect(got.errors).toBeUndefined();
      // B answers 202 after its commit; A may hear of the event before that answer is read here.
      await eventually(() => sent.includes(got.data.eventReceived.id), 5000);
      expect(sent.filter((s) => s.startsWith('status'))).toEqual([]);
      expect(got.data.eventReceived).toMatchObject({ endpointId: endpoint.id, payload: { seq: expect.any(Number) } });
    } finally {
      await client.dispose();
    }
  });

  it('delivers the attempts B’s worker records to a subscriber on A', async () => {
    const receiver = await startReceiver();
    const em = container.orm.em.fork();
    const ws = await createWorkspace(em);
    const { endpoint, signingSecret } = await createEndpoint(container, em, ws.project);
    const destination = await createDestination(container, em, ws.project, { webhookUrl: `${receiver.url}/hook` });
    await linkEndpoint(em, endpoint, destination);
    const { client } = liveClient(a.baseUrl, await tokenFor(container, ws.user.id));
    try {
      const sub = subscribe(client, 'subscription($d: ID) { deliveryAttemptUpdated(destinationId: $d) { eventId destinationId attemptNumber status statusCode } }', { d: destination.id });
      const first = sub.next(20_000);
      // As above: keep sending until the subscription is live.
      const sent: string[] = [];
      const sender = setInterval(() => {
        void postSigned(b.baseUrl, endpoint.slug, signingSecret, { n: sent.length }).then((r) => sent.push(r.body.event_id ?? `status ${r.status}`));
      }, 500);
      const got = await first.finally(() => clearInterval(sender));
      expect(got.errors).toBeUndefined();
      expect(got.data.deliveryAttemptUpdated).toMatchObject({ destinationId: destination.id, attemptNumber: 1, status: 'success', statusCode: 200 });
      await eventually(() => sent.includes(got.data.deliveryAttemptUpdated.eventId), 5000);
    } finally {
      await client.dispose();
      await receiver.close();
    }
  });
});
