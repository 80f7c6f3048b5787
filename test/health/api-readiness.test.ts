import { createHmac } from 'node:crypto';
import { startApiProcess } from '../../src/app/processes';
import { createScene } from '../delivery/harness';
import { freePort } from '../support/free-port';
import { createTestContainer, type TestContainer } from '../support/test-env';

/**
 * A `relay api` process stays ready while Temporal is away: ingress needs only PostgreSQL (events wait in the
 * outbox for the workers), so a Temporal outage must not take every API replica out of its load balancer. Its
 * /readyz still reports Temporal's state.
 */
describe('relay api readiness', () => {
  let t: TestContainer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('answers /readyz 200 with Temporal down (reported) and accepts webhooks', async () => {
    t = await createTestContainer({ TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` });
    const server = await startApiProcess(t.container, 0);
    const readyz = await fetch(`${server.url}/readyz`);
    expect({ status: readyz.status, body: await readyz.json() }).toEqual({ status: 200, body: { status: 'ready', checks: { database: 'up', temporal: 'down' } } });

    const scene = await createScene(t.container);
    const body = JSON.stringify({ while: 'temporal is down' });
    const res = await fetch(`${server.url}/hooks/${scene.endpoint.slug}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', scene.signingSecret).update(body).digest('hex')}` },
      body,
    });
    expect(res.status).toBe(202);
  });
});
