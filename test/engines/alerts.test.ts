import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type Receiver, startReceiver } from '../delivery/receiver';
import { rest } from '../support/api';
import { PASSWORD, uniqueEmail } from '../support/accounts';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestDatabase, type TestDatabase } from '../support/test-env';

const RULES_DIR = path.resolve(__dirname, '..', '..', 'deploy', 'prometheus');
const RULES = path.join(RULES_DIR, 'alerts.yml');

function promtool(args: string[]) {
  const run = spawnSync('promtool', args, { cwd: RULES_DIR, encoding: 'utf8', timeout: 60_000 });
  if (run.error) throw new Error(`promtool is needed (Debian: apt-get install -y prometheus): ${run.error.message}`);
  return run;
}

/** Every relay_* or temporal_* name the rules file uses, in its expressions and its annotations (comments aside). */
function namesInRules(): string[] {
  const text = fs
    .readFileSync(RULES, 'utf8')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
  return [...new Set([...text.matchAll(/\b(?:relay|temporal)_[a-z0-9_]+/g)].map((m) => m[0]))].sort();
}

/** The metric families a `/metrics` page declares (`# TYPE name kind`). */
const declared = (page: string) => new Set([...page.matchAll(/^# TYPE (\S+) \S+$/gm)].map((m) => m[1]));

/** A sample's value on a `/metrics` page, or undefined. */
function sample(page: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of page.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

/**
 * Issue 35: the alert rules shipped for on-call are valid Prometheus rules, their unit tests pass (promtool), and
 * every metric they name is one the service exports, including the Temporal SDK's worker metrics (schedule-to-start
 * latency) forwarded onto the worker's `/metrics`, and its readiness.
 */
describe('the Prometheus alert rules (deploy/prometheus/alerts.yml)', () => {
  it('are valid rules, and pass their unit tests (alerts.test.yml)', () => {
    const check = promtool(['check', 'rules', 'alerts.yml']);
    expect(check.stderr).toBe('');
    expect(check.stdout).toMatch(/SUCCESS: \d+ rules found/);
    expect(check.status).toBe(0);
    const test = promtool(['test', 'rules', 'alerts.test.yml']);
    expect(test.stdout + test.stderr).toMatch(/SUCCESS/);
    expect(test.status).toBe(0);
  });

  describe('against a running service', () => {
    let db: TestDatabase;
    let service: ServiceProcess;
    let receiver: Receiver;

    beforeAll(async () => {
      db = await createTestDatabase();
      receiver = await startReceiver();
      service = await startServiceProcess({ databaseUrl: db.url });
    }, 120_000);
    afterAll(async () => {
      await service?.stop();
      await receiver?.close();
      await db?.drop();
    });

    it('name only metrics it exports; the worker forwards the Temporal SDK metrics and reports its readiness', async () => {
      const base = service.baseUrl;
      const token = (await rest(base, 'POST', '/v1/auth/signup', { body: { email: uniqueEmail('alerts'), password: PASSWORD } })).body.access_token;
      const source = (await rest(base, 'POST', '/v1/endpoints', { token, body: { name: 'Alerts' } })).body;
      // The first attempt fails and is retried a second later: the retry's workflow task waits on the task queue (the
      // first one was handed to the worker at once, by the eager start), so its schedule-to-start latency is recorded.
      receiver.respond = (_req, index) => (index === 0 ? { status: 500 } : { status: 200, body: 'ok' });
      const retryOnce = { max_attempts: 2, backoff: [1] };
      const destination = (await rest(base, 'POST', '/v1/destinations', { token, body: { name: 'Receiver', type: 'webhook', webhook_url: receiver.url, retry_policy: retryOnce } })).body;
      await rest(base, 'POST', `/v1/endpoints/${source.id}/destinations`, { token, body: { destination_id: destination.id } });
      expect((await rest(base, 'POST', `/v1/endpoints/${source.id}/test`, { token })).status).toBe(201);
      await receiver.waitFor(2);

      // The SDK's updates reach the registry within a second of the workflow task.
      let page = '';
      const queue = { namespace: 'default', task_queue: service.taskQueue };
      for (let i = 0; i < 50 && !(sample(page, 'temporal_workflow_task_schedule_to_start_latency_seconds_count', queue)! > 0); i++) {
        await new Promise((r) => setTimeout(r, 200));
        page = await (await fetch(`${base}/metrics`)).text();
      }
      expect(sample(page, 'temporal_workflow_task_schedule_to_start_latency_seconds_count', queue)).toBeGreaterThan(0);
      expect(sample(page, 'temporal_worker_task_slots_available', { ...queue, worker_type: 'WorkflowWorker' })).toBeGreaterThan(0);
      expect(sample(page, 'relay_ready')).toBe(1);
      for (const check of ['database', 'temporal', 'worker']) expect([check, sample(page, 'relay_readiness_check', { check })]).toEqual([check, 1]);
      // A counter an alert takes the increase() of is at 0 before its first count, or that first count would not alert.
      expect(sample(page, 'relay_delivery_workflows_reconciled_total', { action: 'dead_lettered', reason: 'terminated' })).toBe(0);

      const families = declared(page);
      const exported = (name: string) => families.has(name) || families.has(name.replace(/_(bucket|sum|count)$/, ''));
      const used = namesInRules();
      expect(used).toEqual(expect.arrayContaining(['relay_outbox_oldest_undelivered_seconds', 'temporal_workflow_task_schedule_to_start_latency_seconds_bucket']));
      expect(used.filter((name) => !exported(name))).toEqual([]);
    }, 120_000);
  });
});
