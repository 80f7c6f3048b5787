import { Client, Connection } from '@temporalio/client';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestDatabase, type TestDatabase } from '../support/test-env';

describe('the service, started as a user starts it', () => {
  let db: TestDatabase;
  let service: ServiceProcess;

  beforeAll(async () => {
    db = await createTestDatabase();
    service = await startServiceProcess({ databaseUrl: db.url });
  });

  afterAll(async () => {
    await service?.stop();
    await db?.drop();
  });

  it('reports PostgreSQL, Temporal and its worker up on /readyz', async () => {
    const res = await fetch(`${service.baseUrl}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', checks: { database: 'up', temporal: 'up', worker: 'up' } });
  });

  it('runs a workflow through its real worker, which reaches PostgreSQL', async () => {
    const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS });
    try {
      const client = new Client({ connection });
      const result = await client.workflow.execute('pingWorkflow', {
        taskQueue: service.taskQueue,
        workflowId: `e2e-ping-${Date.now()}`,
        args: ['e2e'],
        workflowExecutionTimeout: '30 seconds',
      });
      expect(result).toMatch(/^pong e2e @ \d{4}-\d{2}-\d{2}T/);
    } finally {
      await connection.close();
    }
  });

  it('answers unknown routes with the JSON error shape', async () => {
    const res = await fetch(`${service.baseUrl}/no-such-route`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'route_not_found', message: expect.any(String) } });
  });

  it('stops cleanly on Ctrl+C', async () => {
    expect(await service.stop()).toBe(0);
  });
});
