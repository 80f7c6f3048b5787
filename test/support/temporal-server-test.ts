import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { AppContainer } from '../../src/app/container';
import { findTemporalServer, startTemporalServer, type TemporalServerBinaries, type TemporalServerOptions } from '../../src/launcher/temporal-server';
import { createScene, waitForDeliveries, waitForStatus } from '../delivery/harness';
import type { Receiver } from '../delivery/receiver';
import { freePort } from './free-port';
import { postSigned } from './ingress-helpers';
import type { ServiceProcess } from './service-process';
import { TEST_SECRETS, uniqueTaskQueue } from './test-env';

const RELAY = path.resolve(__dirname, '..', '..', 'bin', 'relay.js');

/** The real temporal-server's binaries, or undefined (the test file says on stderr that it is skipped). */
export function temporalServerForTest(testFile: string): TemporalServerBinaries | undefined {
  try {
    return findTemporalServer(process.env.TEMPORAL_SERVER_PATH);
  } catch {
    process.stderr.write(`${testFile}: skipped, temporal-server is not installed (npm run temporal:server:install)\n`);
    return undefined;
  }
}

/** The real server on the run's PostgreSQL, namespace `default`, in databases of its own (`temporal_<label>_…`). */
export async function startTestTemporalServer(
  binaries: TemporalServerBinaries,
  dir: string,
  label: string,
  security: Pick<TemporalServerOptions, 'tls' | 'authorization'>,
): Promise<{ url: string; stop(): Promise<void> }> {
  const suffix = Math.random().toString(16).slice(2, 8);
  return startTemporalServer({
    binaries,
    postgresUrl: process.env.RELAY_TEST_ADMIN_DATABASE_URL!,
    dir,
    port: await freePort(),
    namespace: 'default',
    database: `temporal_${label}_${suffix}`,
    visibilityDatabase: `temporal_${label}_visibility_${suffix}`,
    ...security,
  });
}

const relayEnv = (databaseUrl: string, env: Record<string, string>) => ({
  ...process.env,
  NODE_ENV: 'test',
  LOG_LEVEL: 'warn',
  DATABASE_URL: databaseUrl,
  TEMPORAL_TASK_QUEUE: uniqueTaskQueue('engines'),
  PORT: '0',
  ...TEST_SECRETS,
  ...env,
});

/** Runs `relay <command>` to its exit (a process that starts fine is killed after `timeoutMs`, and `error` says so). */
export function runRelayToExit(command: 'worker' | 'api', databaseUrl: string, env: Record<string, string>, timeoutMs = 20_000) {
  return spawnSync(process.execPath, [RELAY, command], { env: relayEnv(databaseUrl, env), encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGKILL' });
}

/** `relay migrate` to its exit: the database's migrations, then the namespace's search attributes. */
export function runRelayMigrate(databaseUrl: string, env: Record<string, string>) {
  return spawnSync(process.execPath, [RELAY, 'migrate'], { env: relayEnv(databaseUrl, env), encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' });
}

/** A webhook posted to a running `relay start` is delivered to `receiver`, and the process reports Temporal up. */
export async function expectDeliveryThrough(service: ServiceProcess, container: AppContainer, receiver: Receiver, body: Record<string, unknown>): Promise<void> {
  expect(await (await fetch(`${service.baseUrl}/readyz`)).json()).toEqual({ status: 'ready', checks: { database: 'up', temporal: 'up', worker: 'up' } });
  const scene = await createScene(container);
  await scene.destination(`${receiver.url}/hook`);
  const sent = await postSigned(service.baseUrl, scene.endpoint.slug, scene.signingSecret, body);
  expect(sent.status).toBe(202);
  const [delivery] = await waitForDeliveries(container, sent.body.event_id!, 1);
  expect((await waitForStatus(container, delivery.id, ['success', 'failed'])).status).toBe('success');
  expect(receiver.requests.map((r) => JSON.parse(r.body))).toEqual([body]);
}
