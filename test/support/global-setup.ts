import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { execFileSync } from 'node:child_process';
import { startEmbeddedPostgres } from '../../src/launcher/postgres';
import { findTemporalCli, startTemporalDevServer } from '../../src/launcher/temporal';
import { findTemporalServer, startTemporalServer } from '../../src/launcher/temporal-server';
import { ensureSearchAttributes } from '../../src/temporal/ensure-search-attributes';
import { freePort } from './free-port';
import { TEMPLATE_DB, TEST_SECRETS } from './constants';

type Stop = () => Promise<void>;
declare global {
  var __relayTestStops: Stop[] | undefined;
}

/**
 * Once per `npm test`: PostgreSQL (embedded, or DATABASE_URL) with a migrated
 * template database that each test file clones, and a Temporal dev server
 * (or TEMPORAL_ADDRESS; or, with RELAY_TEST_TEMPORAL=server, a real Temporal
 * server on that PostgreSQL: docs/scaling.md). Exported to the test workers
 * through the environment.
 */
export default async function globalSetup(): Promise<void> {
  const stops: Stop[] = [];
  globalThis.__relayTestStops = stops;

  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-test-'));
    fs.chmodSync(root, 0o755);
    const pg = await startEmbeddedPostgres({ dataDir: path.join(root, 'pg'), port: await freePort(), database: 'relay_admin' });
    stops.push(async () => {
      await pg.stop();
      fs.rmSync(root, { recursive: true, force: true });
    });
    adminUrl = pg.url;
  }
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${TEMPLATE_DB} with (force)`);
  await admin.query(`create database ${TEMPLATE_DB}`);
  await admin.end();
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${TEMPLATE_DB}`;
  // Migrate with the real `relay migrate` in a child process: initialising MikroORM in
  // Jest's parent realm breaks its metadata for in-band test files (mikro-orm#3783).
  execFileSync(process.execPath, [path.resolve(__dirname, '..', '..', 'bin', 'relay.js'), 'migrate'], {
    env: { ...process.env, DATABASE_URL: templateUrl.toString(), TEMPORAL_ADDRESS: '', NODE_ENV: 'test', ...TEST_SECRETS },
    stdio: ['ignore', 'ignore', 'inherit'],
  });

  const profile = process.env.RELAY_TEST_TEMPORAL ?? 'dev';
  if (!['dev', 'server'].includes(profile)) throw new Error(`RELAY_TEST_TEMPORAL: "${profile}" is neither "dev" nor "server"`);
  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  if (!temporalAddress && profile === 'server') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-temporal-server-'));
    const temporal = await startTemporalServer({
      binaries: findTemporalServer(process.env.TEMPORAL_SERVER_PATH),
      postgresUrl: adminUrl,
      dir,
      port: await freePort(),
      namespace: 'default',
    });
    stops.push(async () => {
      await temporal.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    temporalAddress = temporal.url;
  } else if (!temporalAddress) {
    const temporal = await startTemporalDevServer({
      cliPath: findTemporalCli(process.env.TEMPORAL_CLI_PATH),
      dbFile: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'relay-temporal-')), 'temporal.db'),
      port: await freePort(),
      uiPort: await freePort(),
      namespace: 'default',
    });
    stops.push(temporal.stop);
    temporalAddress = temporal.url;
    // Its web UI, for the tests that open a delivery's workflow there (TEMPORAL_UI_URL).
    process.env.RELAY_TEST_TEMPORAL_UI_URL = temporal.uiUrl;
  } else {
    await ensureSearchAttributes({ address: temporalAddress, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
  }

  process.env.RELAY_TEST_ADMIN_DATABASE_URL = adminUrl;
  process.env.TEMPORAL_ADDRESS = temporalAddress;
}
