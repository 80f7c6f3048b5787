import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { rest } from '../support/api';
import { PASSWORD, uniqueEmail } from '../support/accounts';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestDatabase, type TestDatabase } from '../support/test-env';
import { runCli } from '../cli/cli-process';
import { type Receiver, startReceiver } from '../delivery/receiver';
import { clone, CORPUS, CORPUS_TYPES, examplesOf } from './corpus';

/**
 * Schemas, drift and silence end to end (docs/schemas.md), against the service as a user starts it
 * (`relay start`: API, worker with its learner and silence check, Temporal): a real provider's corpus
 * posted through ingress is learned without an alert; a removed field, a retyped field and a new event
 * type each reach a webhook linked to the system source once, with their paths; an added field alone
 * does not; a source that goes quiet past its expected interval alerts once and resolves when events
 * return; `relay schema --typescript` writes types the corpus compiles against with tsc.
 */

interface Envelope {
  type: string;
  dashboard_url: string;
  project: { id: string };
  data: Record<string, any>;
}

const execFileAsync = promisify(execFile);
const TSC = path.resolve(__dirname, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc');
const WARMUP_SECONDS = 20;

async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('schema drift and silence (the running service, real worker and Temporal)', () => {
  let db: TestDatabase;
  let service: ServiceProcess;
  let receiver: Receiver;
  let token: string;
  let projectId: string;
  let source: { id: string; slug: string; signing_secret: string };
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-schemas-'));

  const call = (method: string, p: string, body?: unknown) => rest(service.baseUrl, method, p, { token, body });
  const alerts = () => receiver.requests.map((r) => JSON.parse(r.body) as Envelope);

  /**
   * Posts a payload through the source's ingress as codehost_a would: signed, its event type in a header, sent
   * again after the Retry-After of a 429 (the free plan's per-source cap is below what a fast machine posts).
   */
  async function post(type: string, payload: unknown): Promise<string> {
    const body = JSON.stringify(payload);
    for (;;) {
      const res = await fetch(`${service.baseUrl}/hooks/${source.slug}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-codehosta-event': type,
          'x-hub-signature-256': `sha256=${createHmac('sha256', source.signing_secret).update(body).digest('hex')}`,
        },
        body,
      });
      if (res.status === 429) {
        await res.arrayBuffer();
        await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
        continue;
      }
      if (res.status !== 202) throw new Error(`ingress answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { event_id: string }).event_id;
    }
  }

  const schemas = async () => (await call('GET', `/v1/endpoints/${source.id}/schemas`)).body;
  /** Waits until the learner has counted `n` events of the source. */
  const learned = (n: number) => until(`${n} events learned`, async () => (await schemas()).activity.event_count >= n && (await schemas()));

  beforeAll(async () => {
    db = await createTestDatabase();
    service = await startServiceProcess({
      databaseUrl: db.url,
      env: { RELAY_SCHEMA_WARMUP_SECONDS: String(WARMUP_SECONDS), RELAY_SILENCE_CHECK_SECONDS: '1', RELAY_OPERATIONAL_EVENT_WINDOW_SECONDS: '0' },
    });
    receiver = await startReceiver();
    const signup = await rest(service.baseUrl, 'POST', '/v1/auth/signup', { body: { email: uniqueEmail('schemas'), password: PASSWORD } });
    token = signup.body.access_token;
    const created = await call('POST', '/v1/endpoints', { name: 'Codehost A', slug: `codehost-a-${Date.now()}`, provider: 'codehost_a' });
    expect(created.status).toBe(201);
    source = created.body;
    projectId = created.body.project_id;
    // A webhook linked to the system source, taking the source alerts.
    const system = (await call('GET', '/v1/endpoints')).body.data.find((e: { system: boolean }) => e.system);
    const destination = await call('POST', '/v1/destinations', {
      name: 'Provider alerts',
      type: 'webhook',
      webhook_url: receiver.url,
      event_types: ['relay.source.schema_changed', 'relay.source.silent', 'relay.source.resumed'],
    });
    expect(destination.status).toBe(201);
    expect((await call('POST', `/v1/endpoints/${system.id}/destinations`, { destination_id: destination.body.id })).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await receiver?.close();
    await service?.stop();
    await db?.drop();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('learns a corpus of real payloads without an alert', async () => {
    for (const e of CORPUS) await post(e.type, e.payload);
    const body = await learned(CORPUS.length);
    expect(body.data.map((s: { event_type: string }) => s.event_type)).toEqual([...CORPUS_TYPES].sort());
    expect(body.data.find((s: { event_type: string }) => s.event_type === 'issues')).toMatchObject({ event_count: 29, warm: true, pending_changes: 0 });
    expect((await call('GET', `/v1/issues?endpoint_id=${source.id}`)).body.data).toEqual([]);
    expect(receiver.requests).toEqual([]);
  }, 180_000);

  it('a removed field, a retyped field and a new event type each alert once, with their paths; an added field alone does not', async () => {
    const removed = clone(examplesOf('issues')[0]);
    delete removed.issue.user.login;
    const removedId = await post('issues', removed);
    // The same change again: already learned, no second alert.
    await post('issues', removed);
    await receiver.waitFor(1);
    let [alert] = alerts();
    expect(alert).toMatchObject({
      type: 'relay.source.schema_changed',
      project: { id: projectId },
      dashboard_url: expect.stringMatching(new RegExp(`^http://[^/]+/endpoints/${source.id}\\?project=${projectId}$`)),
      data: {
        source: { id: source.id, name: 'Codehost A', slug: source.slug },
        event_type: 'issues',
        change: { kind: 'changed', added: [], removed: ['issue.user.login'], retyped: [] },
        event: { id: removedId },
        issue: { cause: 'schema_changed', state: 'open' },
      },
    });

    const retyped = clone(examplesOf('issues')[1]);
    retyped.issue.number = String(retyped.issue.number);
    const retypedId = await post('issues', retyped);
    await receiver.waitFor(2);
    alert = alerts()[1];
    expect(alert.data).toMatchObject({ change: { removed: [], retyped: [{ path: 'issue.number', from: ['integer'], to: ['string'] }] }, event: { id: retypedId } });

    // Added alone: recorded in the drift history, no alert.
    const added = clone(examplesOf('issues')[2]);
    added.issue.ai_summary = 'a new field';
    await post('issues', added);
    const schemaId = (await schemas()).data.find((s: { event_type: string }) => s.event_type === 'issues').id;
    const history = await until('the addition recorded', async () => {
      const changes = (await call('GET', `/v1/event-schemas/${schemaId}`)).body.changes as Array<{ added: string[]; alerted: boolean }>;
      return changes.find((c) => c.added.includes('issue.ai_summary'));
    });
    expect(history.alerted).toBe(false);

    // A new event type, once the source's learning window is over.
    const firstEventAt = Date.parse((await schemas()).activity.first_event_at);
    await new Promise((r) => setTimeout(r, Math.max(0, firstEventAt + WARMUP_SECONDS * 1000 + 1000 - Date.now())));
    const freshId = await post('sponsorship_tier', { action: 'created', tier: { name: 'Gold', monthly_price_in_cents: 500 } });
    await receiver.waitFor(3);
    expect(alerts()[2].data).toMatchObject({ event_type: 'sponsorship_tier', change: { kind: 'new_event_type' }, event: { id: freshId } });
    await post('sponsorship_tier', { action: 'edited', tier: { name: 'Gold', monthly_price_in_cents: 600 } });
    await learned(CORPUS.length + 6);
    // The two issues: issues' (two changes) and the new type's.
    const issues = (await call('GET', `/v1/issues?endpoint_id=${source.id}`)).body.data as Array<{ event_type: string; failure_count: number; cause: string }>;
    expect(issues.map((i) => [i.cause, i.event_type, i.failure_count]).sort()).toEqual([
      ['schema_changed', 'issues', 2],
      ['schema_changed', 'sponsorship_tier', 1],
    ]);
    expect(receiver.requests).toHaveLength(3);
  }, 180_000);

  it('relay schema --typescript writes types the whole corpus compiles against with tsc', async () => {
    const key = await call('POST', '/v1/api-keys', { name: 'schema types' });
    // All of its output (a large module): 'exit' may come before the last of it is read.
    const cli = runCli(['schema', source.slug, '--typescript', '--api-url', service.baseUrl], { RELAY_API_KEY: key.body.key, XDG_CONFIG_HOME: work });
    expect(await cli.closed).toBe(0);
    expect(cli.stdout()).toContain('export interface IssuesEvent {');
    fs.writeFileSync(path.join(work, 'codehost-a-events.ts'), cli.stdout());
    const lines = ["import type { CodehostAEvents } from './codehost-a-events';"];
    CORPUS.forEach((e, k) => {
      fs.writeFileSync(path.join(work, `e${k}.json`), JSON.stringify(e.payload));
      lines.push(`import e${k} from './e${k}.json';`, `export const t${k}: CodehostAEvents[${JSON.stringify(e.type)}] = e${k};`);
    });
    fs.writeFileSync(path.join(work, 'corpus.ts'), `${lines.join('\n')}\n`);
    const flags = ['--noEmit', '--strict', '--resolveJsonModule', '--esModuleInterop', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck'];
    const compiled = await execFileAsync(process.execPath, [TSC, ...flags, 'corpus.ts'], { cwd: work }).then(
      () => 'compiled',
      (err: { stdout: string }) => err.stdout,
    );
    expect(compiled).toBe('compiled');

    // One event type, as JSON Schema.
    const one = runCli(['schema', source.slug, 'push', '--api-url', service.baseUrl], { RELAY_API_KEY: key.body.key, XDG_CONFIG_HOME: work });
    expect(await one.closed).toBe(0);
    expect(JSON.parse(one.stdout())).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'push', type: 'object' });
    const missing = runCli(['schema', source.slug, 'no_such_type', '--api-url', service.baseUrl], { RELAY_API_KEY: key.body.key, XDG_CONFIG_HOME: work });
    expect(await missing.closed).toBe(1);
    expect(missing.stderr()).toMatch(/^relay: codehost-a-\d+ has received no event of type "no_such_type"; its types: "branch_protection_rule", /);
  }, 120_000);

  it('a source that goes quiet past its expected interval alerts once, and resolves when events return', async () => {
    const before = receiver.requests.length;
    expect((await call('PATCH', `/v1/endpoints/${source.id}`, { expected_interval_seconds: 10 })).status).toBe(200);
    await receiver.waitFor(before + 1);
    const silent = alerts()[before];
    expect(silent).toMatchObject({
      type: 'relay.source.silent',
      dashboard_url: expect.stringMatching(new RegExp(`/endpoints/${source.id}\\?project=${projectId}$`)),
      data: { source: { id: source.id }, expectation: { mode: 'expected_interval', interval_seconds: 10 }, issue: { cause: 'source_silent', state: 'open' } },
    });
    // Silent for a few more checks: still one alert.
    await new Promise((r) => setTimeout(r, 3000));
    expect(receiver.requests).toHaveLength(before + 1);
    expect((await schemas()).activity.silent_since).toBe(silent.data.silent_since);

    const back = await post('ping', examplesOf('ping')[0]);
    await receiver.waitFor(before + 2);
    expect(alerts()[before + 1]).toMatchObject({
      type: 'relay.source.resumed',
      data: { source: { id: source.id }, silent_since: silent.data.silent_since, event: { id: back, type: 'ping' }, issue: { id: silent.data.issue.id, state: 'resolved', resolved_by: 'auto' } },
    });
    const issue = (await call('GET', `/v1/issues/${silent.data.issue.id}`)).body;
    expect(issue).toMatchObject({ cause: 'source_silent', state: 'resolved', source: { id: source.id }, destination: null });
  }, 120_000);
});
