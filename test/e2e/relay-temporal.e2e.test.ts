import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onPath } from '../../src/launcher/temporal-cli';
import { gql, rest } from '../support/api';
import { startReceiver, type Receiver } from '../delivery/receiver';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestDatabase, type TestDatabase } from '../support/test-env';

const REPO = path.resolve(__dirname, '..', '..');

/**
 * A delivery's workflow, from the product: the REST and GraphQL views carry its workflow id and its page in the
 * Temporal UI, and `relay temporal …` runs the Temporal CLI against the service's Temporal as docs/ write it,
 * from a clone where `npm start` installed the CLI under .relay/tools (no `temporal` on PATH). Against the run's
 * Temporal dev server.
 */
describe('a delivery’s workflow: its id and UI link in the API, and relay temporal', () => {
  const temporalCli = process.env.TEMPORAL_CLI_PATH ?? onPath('temporal');
  const uiUrl = process.env.RELAY_TEST_TEMPORAL_UI_URL;
  const devServerPort = (process.env.TEMPORAL_ADDRESS ?? '').split(':')[1];
  let db: TestDatabase;
  let service: ServiceProcess;
  let receiver: Receiver;
  let token = '';
  let eventId = '';
  let dataDir = '';
  /** PATH without any `temporal`: only the one "installed" under the data directory can be found. */
  let bareEnv: NodeJS.ProcessEnv = {};

  beforeAll(async () => {
    if (!temporalCli || !uiUrl) throw new Error('this test needs the run’s own Temporal dev server and its CLI (TEMPORAL_ADDRESS unset)');
    receiver = await startReceiver();
    db = await createTestDatabase();
    service = await startServiceProcess({ databaseUrl: db.url, env: { TEMPORAL_UI_URL: uiUrl } });
    const signup = await rest(service.baseUrl, 'POST', '/v1/auth/signup', { body: { email: `wf-${Date.now()}@example.test`, password: 'correct horse battery staple' } });
    token = signup.body.access_token;
    const source = await rest(service.baseUrl, 'POST', '/v1/endpoints', { token, body: { name: 'Orders' } });
    const destination = await rest(service.baseUrl, 'POST', '/v1/destinations', { token, body: { name: 'Receiver', type: 'webhook', webhook_url: `${receiver.url}/hook` } });
    await rest(service.baseUrl, 'POST', `/v1/endpoints/${source.body.id}/destinations`, { token, body: { destination_id: destination.body.id } });
    eventId = (await rest(service.baseUrl, 'POST', `/v1/endpoints/${source.body.id}/test`, { token })).body.event_id;
    await receiver.waitFor(1);

    // A clone after its first `npm start`: the CLI in .relay/tools/venv/bin, none on PATH.
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-temporal-cmd-'));
    fs.mkdirSync(path.join(dataDir, 'tools', 'venv', 'bin'), { recursive: true });
    fs.symlinkSync(fs.realpathSync(temporalCli), path.join(dataDir, 'tools', 'venv', 'bin', 'temporal'));
    const { TEMPORAL_ADDRESS: _address, TEMPORAL_CLI_PATH: _cli, ...inherited } = process.env;
    const PATH = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => !fs.existsSync(path.join(dir, 'temporal'))).join(path.delimiter);
    bareEnv = { ...inherited, PATH, NODE_ENV: 'development', RELAY_DATA_DIR: dataDir, RELAY_TEMPORAL_PORT: devServerPort };
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await db?.drop();
    await receiver?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('the REST and GraphQL views of a delivery carry its workflow id and its page in the Temporal UI', async () => {
    const { body } = await rest(service.baseUrl, 'GET', `/v1/deliveries?event_id=${eventId}`, { token });
    const [delivery] = body.data;
    expect(delivery.workflow_id).toBe(`delivery-${delivery.id}`);
    expect(delivery.workflow_url).toBe(`${uiUrl}/namespaces/default/workflows/delivery-${delivery.id}`);
    const single = await rest(service.baseUrl, 'GET', `/v1/deliveries/${delivery.id}`, { token });
    expect(single.body).toMatchObject({ workflow_id: delivery.workflow_id, workflow_url: delivery.workflow_url });
    const viaGraphql = await gql(service.baseUrl, 'query ($id: ID!) { event(id: $id) { deliveries { workflowId workflowUrl } } }', { id: eventId }, { token });
    expect(viaGraphql.data.event.deliveries).toEqual([{ workflowId: delivery.workflow_id, workflowUrl: delivery.workflow_url }]);
    // The UI serves that page (the browser test opens it and sees the workflow there).
    expect((await fetch(delivery.workflow_url)).status).toBe(200);
  });

  /** A command line as a person types it, through bash (quotes and all). */
  const shell = (command: string, env: NodeJS.ProcessEnv = bareEnv, cwd = REPO) => spawnSync('bash', ['-c', command], { cwd, env, encoding: 'utf8', timeout: 60_000 });

  it('relay temporal workflow list --query, as the docs write it, lists the event’s workflow (npm start’s CLI and dev server address)', async () => {
    const { body } = await rest(service.baseUrl, 'GET', `/v1/deliveries?event_id=${eventId}`, { token });
    const listed = shell(`npx relay temporal workflow list --query 'RelayEventId="${eventId}"'`);
    expect(listed.stderr).toBe('');
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain(body.data[0].workflow_id);
    expect(listed.stdout).toContain('Completed');

    const viaNpm = shell(`npm run -s relay -- temporal workflow describe --workflow-id ${body.data[0].workflow_id} -o json`);
    expect(viaNpm.status).toBe(0);
    expect(JSON.parse(viaNpm.stdout).workflowExecutionInfo).toMatchObject({ execution: { workflowId: body.data[0].workflow_id }, status: 'WORKFLOW_EXECUTION_STATUS_COMPLETED' });
  });

  it('reads .env as the service does, passes the namespace, and says in one line when there is no CLI', () => {
    // .env in the working directory gives the address; an unknown namespace reaches the CLI, which says so.
    const cwd = fs.mkdtempSync(path.join(dataDir, 'clone-'));
    fs.writeFileSync(path.join(cwd, '.env'), `RELAY_TEMPORAL_PORT=${devServerPort}\nTEMPORAL_NAMESPACE=no-such-namespace\n`);
    const { RELAY_TEMPORAL_PORT: _port, ...withoutPort } = bareEnv;
    const wrongNamespace = shell(`node ${path.join(REPO, 'bin', 'relay.js')} temporal workflow list`, withoutPort, cwd);
    expect(wrongNamespace.status).not.toBe(0);
    expect(wrongNamespace.stderr).toMatch(/no-such-namespace/);

    const noCli = shell(`node bin/relay.js temporal workflow list`, { ...bareEnv, RELAY_DATA_DIR: path.join(dataDir, 'elsewhere') });
    expect(noCli.status).toBe(1);
    expect(noCli.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^relay: no Temporal CLI here .*npm start installs it on its first start; or set TEMPORAL_CLI_PATH/)]);
  });
});
