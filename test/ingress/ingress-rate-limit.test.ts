import type { EntityManager } from '@mikro-orm/postgresql';
import { type AppContainer, createContainer } from '../../src/app/container';
import type { Plan } from '../../src/common/types';
import type { WebhookEndpoint } from '../../src/endpoints/endpoint.entity';
import { type ApiServer, startApiServer } from '../../src/http/server';
import { createEndpoint, createWorkspace } from '../support/factories';
import { type HookResponse, postHook, postSigned } from '../support/ingress-helpers';
import { createTestContainer, type TestContainer, testConfig } from '../support/test-env';

/** Waits for the start of a wall-clock second, so that a short burst falls in one counting window. */
async function startOfSecond(): Promise<void> {
  await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 5));
}

describe('ingress rate caps (shared by every API process)', () => {
  let tc: TestContainer;
  let second: AppContainer;
  let servers: ApiServer[];
  let em: EntityManager;

  beforeAll(async () => {
    tc = await createTestContainer();
    // A second API process on the same database: counts must be shared.
    second = await createContainer(testConfig({ DATABASE_URL: tc.db.url, TEMPORAL_TASK_QUEUE: tc.container.config.TEMPORAL_TASK_QUEUE }));
    servers = [await startApiServer(tc.container, 0), await startApiServer(second, 0)];
    em = tc.container.orm.em.fork();
  });

  afterAll(async () => {
    for (const s of servers ?? []) await s.close();
    await second?.close();
    await tc?.close();
  });

  /**
   * Makes fresh endpoints, then fires `perEndpoint` requests at each, alternating between the two
   * servers, inside one wall-clock second (started again on new endpoints if it spilled over).
   */
  async function burst(plan: Plan, endpointCount: number, perEndpoint: number, fields: Partial<WebhookEndpoint> = {}) {
    for (let attempt = 0; ; attempt++) {
      const { project } = await createWorkspace(em, { plan });
      const endpoints = await Promise.all(Array.from({ length: endpointCount }, () => createEndpoint(tc.container, em, project, fields)));
      // Warm both processes' endpoint caches (unsigned: 401, not counted), outside the measured second.
      await Promise.all(endpoints.flatMap(({ endpoint }) => servers.map((s) => postHook(s.url, endpoint.slug, '{}'))));
      await startOfSecond();
      const started = Math.floor(Date.now() / 1000);
      const results = await Promise.all(
        endpoints.map(({ endpoint, signingSecret }) =>
          Promise.all(Array.from({ length: perEndpoint }, (_, i) => postSigned(servers[i % 2].url, endpoint.slug, signingSecret, { i }))),
        ),
      );
      const spilled = Math.floor(Date.now() / 1000) !== started;
      // A loaded machine (a CI run of the whole suite) can spill a burst more often than not: try up to ten times.
      if (!spilled || attempt === 9) return { endpoints, results };
    }
  }

  const statuses = (rs: HookResponse[]) => rs.reduce<Record<number, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});

  it('Free: 60 per second per endpoint across both processes, then 429 with Retry-After and the error body', async () => {
    const { endpoints, results: [results] } = await burst('free', 1, 66);
    expect(statuses(results)).toEqual({ 202: 60, 429: 6 });
    const rejected = results.find((r) => r.status === 429)!;
    expect(rejected.headers.get('retry-after')).toBe('1');
    expect(rejected.body.error).toMatchObject({ code: 'rate_limited', details: { scope: 'endpoint', cap: 60, plan: 'free', retry_after_seconds: 1 } });
    const [{ n }] = await em.getConnection().execute('select count(*)::int as n from events where endpoint_id = ?', [endpoints[0].endpoint.id]);
    expect(n).toBe(60);
  });

  it('Free: 180 per second per project (sum of its endpoints)', async () => {
    const results = (await burst('free', 4, 47)).results.flat();
    expect(statuses(results)).toEqual({ 202: 180, 429: 8 });
    expect(results.find((r) => r.status === 429)!.body.error?.details).toMatchObject({ scope: 'project', cap: 180 });
  });

  it('Team: overages are accepted, logged and counted in /metrics', async () => {
    const { results: [results] } = await burst('team', 1, 130);
    expect(statuses(results)).toEqual({ 202: 130 });
    await new Promise((r) => setTimeout(r, 300));
    // Both processes share one prom-client registry here (one jest process), so the sum is what each flushed.
    const text = await (await fetch(`${servers[0].url}/metrics`)).text();
    const over = Number(/relay_ingress_rate_limited_total\{outcome="accepted_over_cap",scope="endpoint",plan="team"\} (\d+)/.exec(text)?.[1]);
    expect(over).toBeGreaterThanOrEqual(10);
    expect(text).toMatch(/relay_ingress_rate_limited_total\{outcome="rejected",scope="endpoint",plan="free"\} \d+/);
  });

  it('never limits endpoints created by an integration', async () => {
    const { results: [results] } = await burst('free', 1, 80, { isIntegration: true });
    expect(statuses(results)).toEqual({ 202: 80 });
  });
});
