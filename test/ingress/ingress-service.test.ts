import type { EntityManager } from '@mikro-orm/postgresql';
import { notifyEndpointChanged } from '../../src/ingress/endpoint-cache';
import { createEndpoint, createWorkspace } from '../support/factories';
import { type HookResponse, postSigned } from '../support/ingress-helpers';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestContainer, type TestContainer } from '../support/test-env';

/** Ingress in the real service process (`relay start`), separate from the test process. */
describe('ingress in the service process', () => {
  let tc: TestContainer;
  let service: ServiceProcess;
  let em: EntityManager;

  beforeAll(async () => {
    tc = await createTestContainer();
    em = tc.container.orm.em.fork();
    service = await startServiceProcess({ databaseUrl: tc.db.url, env: { RELAY_RUN_WORKER: '0' } });
  });

  afterAll(async () => {
    await service?.stop();
    await tc?.close();
  });

  it('drops its cached endpoint when another process commits a change (LISTEN/NOTIFY)', async () => {
    const { project } = await createWorkspace(em, { plan: 'growth' });
    const { endpoint, signingSecret } = await createEndpoint(tc.container, em, project);
    expect((await postSigned(service.baseUrl, endpoint.slug, signingSecret, { a: 1 })).status).toBe(202);
    endpoint.isActive = false;
    await em.flush();
    await notifyEndpointChanged(em, endpoint.id);
    // The notification crosses processes; allow it a moment (the cache TTL alone would take 30 s).
    let status = 0;
    for (let i = 0; i < 20 && status !== 404; i++) {
      status = (await postSigned(service.baseUrl, endpoint.slug, signingSecret, { a: 2 })).status;
      if (status !== 404) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(404);
  });

  it('never loses an event it answered 202 for, even when killed mid-load', async () => {
    const { project } = await createWorkspace(em, { plan: 'growth' });
    const { endpoint, signingSecret } = await createEndpoint(tc.container, em, project, { isIntegration: true });
    const accepted: string[] = [];
    let stop = false;
    const sender = async () => {
      while (!stop) {
        const res: HookResponse | null = await postSigned(service.baseUrl, endpoint.slug, signingSecret, { at: Date.now() }).catch(() => null);
        if (res?.status === 202) accepted.push(res.body.event_id!);
        if (!res) return;
      }
    };
    const senders = Array.from({ length: 16 }, sender);
    while (accepted.length < 300) await new Promise((r) => setTimeout(r, 10));
    service.child.kill('SIGKILL');
    stop = true;
    await Promise.all(senders);
    const rows: Array<{ id: string }> = await em.getConnection().execute('select id from events where endpoint_id = ?', [endpoint.id]);
    const stored = new Set(rows.map((r) => r.id));
    expect(accepted.length).toBeGreaterThanOrEqual(300);
    expect(accepted.filter((id) => !stored.has(id))).toEqual([]);
  });
});
