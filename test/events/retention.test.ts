import type { AppContainer } from '../../src/app/container';
import { startWorkerProcess } from '../../src/app/processes';
import { uuidv7 } from '../../src/common/ids';
import type { WebhookEndpoint } from '../../src/endpoints/endpoint.entity';
import { purgeExpiredEvents } from '../../src/retention/purge-events';
import { ensureRetentionSchedule, retentionScheduleId } from '../../src/retention/retention-schedule';
import { insertDelivery } from '../support/delivery-fixtures';
import { createDestination, createEndpoint, createWorkspace } from '../support/factories';
import { eventually } from '../support/live-client';
import { createTestContainer, type TestContainer } from '../support/test-env';

const DAY = 86_400_000;

/** An event received `ageDays` ago (its UUIDv7 id and created_at both say so). */
async function insertAgedEvent(container: AppContainer, endpoint: WebhookEndpoint, ageDays: number): Promise<string> {
  const at = Date.now() - ageDays * DAY;
  const id = uuidv7(at);
  await container.orm.em.getConnection().execute(
    `insert into events (id, endpoint_id, project_id, organization_id, payload, headers, status, created_at, dispatched_at)
     select ?, ep.id, ep.project_id, p.organization_id, '{}'::json, '{}'::json, 'received', ?, now()
       from webhook_endpoints ep join projects p on p.id = ep.project_id where ep.id = ?`,
    [id, new Date(at), endpoint.id],
  );
  return id;
}

async function existing(container: AppContainer, table: 'events' | 'deliveries' | 'delivery_attempts', ids: string[]): Promise<string[]> {
  const rows = await container.orm.em.getConnection().execute<Array<{ id: string }>>(`select id from ${table} where id = any(?::uuid[]) order by id`, [`{${ids.join(',')}}`]);
  return rows.map((r) => r.id);
}

describe('event retention', () => {
  let env: TestContainer;
  const ids: Record<string, string> = {};
  let oldAttempts: string[];
  let oldDelivery: string;

  beforeAll(async () => {
    env = await createTestContainer();
    const { container } = env;
    const em = container.orm.em.fork();
    const byDefault = await createWorkspace(em);
    const short = await createWorkspace(em);
    short.project.retentionDays = 10;
    const long = await createWorkspace(em);
    long.project.retentionDays = 90;
    await em.flush();
    const epDefault = (await createEndpoint(container, em, byDefault.project)).endpoint;
    const epShort = (await createEndpoint(container, em, short.project)).endpoint;
    const epLong = (await createEndpoint(container, em, long.project)).endpoint;
    const dest = await createDestination(container, em, byDefault.project, { webhookUrl: 'http://127.0.0.1:9/x' });
    ids.default40 = await insertAgedEvent(container, epDefault, 40);
    ids.default20 = await insertAgedEvent(container, epDefault, 20);
    ids.short15 = await insertAgedEvent(container, epShort, 15);
    ids.short5 = await insertAgedEvent(container, epShort, 5);
    ids.long60 = await insertAgedEvent(container, epLong, 60);
    ids.long100 = await insertAgedEvent(container, epLong, 100);
    const d = await insertDelivery(container, { eventId: ids.default40, destinationId: dest.id, status: 'failed', attempts: [{ status: 'failed' }, { status: 'failed' }] });
    oldDelivery = d.deliveryId;
    oldAttempts = d.attemptIds;
  });
  afterAll(async () => {
    await env.container.temporal.schedule.getHandle(retentionScheduleId(env.container.config.TEMPORAL_TASK_QUEUE)).delete().catch(() => undefined);
    await env.close();
  });

  it('stops early when its time budget is spent and reports that more remains', async () => {
    const knex = env.container.orm.em.getConnection().getKnex();
    expect(await purgeExpiredEvents(knex, { defaultDays: 30, batchSize: 1, budgetMs: -1 })).toEqual({ deleted: 0, more: true });
    expect(await existing(env.container, 'events', Object.values(ids))).toHaveLength(6);
  });

  it('creates its hourly Temporal Schedule at worker start, once', async () => {
    const { container } = env;
    await startWorkerProcess(container);
    const taskQueue = container.config.TEMPORAL_TASK_QUEUE;
    // Created once the worker first runs, beside its start (Temporal may still be away when the worker starts).
    const handle = container.temporal.schedule.getHandle(retentionScheduleId(taskQueue));
    await eventually(() => handle.describe().then(() => true, () => false), 30_000);
    const schedule = await handle.describe();
    expect(schedule.action).toMatchObject({ type: 'startWorkflow', workflowType: 'retentionWorkflow', taskQueue });
    expect(schedule.spec.intervals?.[0].every).toBe(3_600_000);
    expect(await ensureRetentionSchedule(container.temporal, taskQueue, container.log)).toBe('exists');
  });

  it('removes events past their project’s retention (default 30 days) with their deliveries and attempts', async () => {
    const { container } = env;
    await container.temporal.schedule.getHandle(retentionScheduleId(container.config.TEMPORAL_TASK_QUEUE)).trigger();
    const kept = [ids.default20, ids.short5, ids.long60].sort();
    await eventually(async () => (await existing(container, 'events', Object.values(ids))).length === 3, 30_000);
    expect(await existing(container, 'events', Object.values(ids))).toEqual(kept);
    expect(await existing(container, 'deliveries', [oldDelivery])).toEqual([]);
    expect(await existing(container, 'delivery_attempts', oldAttempts)).toEqual([]);
  });
});
