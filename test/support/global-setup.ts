import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createOrm, migrate } from '../../src/db/orm';
import { startEmbeddedPostgres } from '../../src/launcher/postgres';
import { findTemporalCli, startTemporalDevServer } from '../../src/launcher/temporal';
import { ensureSearchAttributes } from '../../src/temporal/ensure-search-attributes';
import { freePort } from './free-port';
import { TEMPLATE_DB } from './test-env';

type Stop = () => Promise<void>;
declare global {
  var __relayTestStops: Stop[] | undefined;
}

/**
 * Once per `npm test`: PostgreSQL (embedded, or DATABASE_URL) with a migrated
 * template database that each test file clones, and a Temporal dev server
 * (or TEMPORAL_ADDRESS). Exported to the test workers through the environment.
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
  const orm = await createOrm(templateUrl.toString());
  await migrate(orm);
  await orm.close();

  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  if (!temporalAddress) {
    const temporal = await startTemporalDevServer({
      cliPath: findTemporalCli(process.env.TEMPORAL_CLI_PATH),
      dbFile: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'relay-temporal-')), 'temporal.db'),
      port: await freePort(),
      uiPort: await freePort(),
      namespace: 'default',
    });
    stops.push(temporal.stop);
    temporalAddress = temporal.url;
  } else {
    await ensureSearchAttributes(temporalAddress, process.env.TEMPORAL_NAMESPACE ?? 'default');
  }

  process.env.RELAY_TEST_ADMIN_DATABASE_URL = adminUrl;
  process.env.TEMPORAL_ADDRESS = temporalAddress;
}
