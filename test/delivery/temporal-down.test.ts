import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findTemporalCli, startTemporalDevServer } from '../../src/launcher/temporal';
import { freePort } from '../support/free-port';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestContainer, type TestContainer } from '../support/test-env';
import { attemptsOf, createScene, sql, waitForStatus } from './harness';
import { type Receiver, startReceiver } from './receiver';

describe('Temporal down at ingress time', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-temporal-down-'));
  let t: TestContainer;
  let receiver: Receiver;
  let service: ServiceProcess | undefined;
  let temporal: Awaited<ReturnType<typeof startTemporalDevServer>> | undefined;
  let port: number;

  // A private dev server that this test stops and starts again on the same port and database file.
  const startTemporal = async () => {
    temporal = await startTemporalDevServer({
      cliPath: findTemporalCli(process.env.TEMPORAL_CLI_PATH),
      dbFile: path.join(dir, 'temporal.db'),
      port,
      uiPort: await freePort(),
      namespace: 'default',
    });
  };

  beforeAll(async () => {
    t = await createTestContainer();
    receiver = await startReceiver();
    port = await freePort();
    await startTemporal();
  });

  afterAll(async () => {
    await service?.stop();
    await temporal?.stop();
    await receiver?.close();
    await t?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers 202 while Temporal is down and delivers every event once it is back', async () => {
    service = await startServiceProcess({ databaseUrl: t.db.url, env: { TEMPORAL_ADDRESS: `127.0.0.1:${port}` } });
    // Ready to serve HTTP comes before the worker has bundled its workflows and connected: wait for both.
    while (!service.output().includes('webhook relay is running')) await new Promise((r) => setTimeout(r, 100));
    const scene = await createScene(t.container);
    await scene.destination(receiver.url);
    await temporal!.stop();
    const eventIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const body = JSON.stringify({ n: i });
      const res = await fetch(`${service.baseUrl}/hooks/${scene.endpoint.slug}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', scene.signingSecret).update(body).digest('hex')}` },
        body,
      });
      expect(res.status).toBe(202);
      eventIds.push(((await res.json()) as { event_id: string }).event_id);
    }

    // The outbox fans out without Temporal; the workflows wait for it (each failed start is unmarked and claimed again).
    const pending = async () => sql<{ workflow_started_at: string | null }>(t.container, 'select workflow_started_at from deliveries where event_id = any(?::uuid[])', [`{${eventIds.join(',')}}`]);
    while ((await pending()).length < eventIds.length) await new Promise((r) => setTimeout(r, 100));
    const attempted = await sql(t.container, 'select id from delivery_attempts where event_id = any(?::uuid[])', [`{${eventIds.join(',')}}`]);
    expect(attempted).toEqual([]);
    expect(receiver.requests).toHaveLength(0);

    await startTemporal();
    for (const eventId of eventIds) {
      const rows = await sql<{ id: string }>(t.container, 'select id from deliveries where event_id = ?', [eventId]);
      expect(rows).toHaveLength(1);
      await waitForStatus(t.container, rows[0].id, ['success']);
      expect((await attemptsOf(t.container, rows[0].id)).map((a) => a.status)).toEqual(['success']);
    }
    expect(receiver.requests.map((r) => JSON.parse(r.body).n).sort()).toEqual([0, 1, 2]);
  }, 120_000);
});
