import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createOrm, migrate } from '../src/db/orm';
import { pgClientConfig } from '../src/db/pg-connection';
import { startEmbeddedPostgres } from '../src/launcher/postgres';
import { freePort } from '../test/support/free-port';

type Stops = Array<() => Promise<unknown> | unknown>;

/**
 * A throwaway data directory named after the bench (under `parent`, default the OS temp dir) and an
 * embedded PostgreSQL in it; `stops` (run last-registered first by runStops) stops and removes both.
 */
export async function startBenchPostgres(name: string, stops: Stops, parent = os.tmpdir()): Promise<{ dataDir: string; url: string }> {
  const dataDir = fs.mkdtempSync(path.join(parent, `relay-bench-${name}-`));
  fs.chmodSync(dataDir, 0o755);
  stops.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), port: await freePort() });
  stops.push(() => pg.stop());
  return { dataDir, url: pg.url };
}

/** startBenchPostgres with the schema migrated and a connected client (`stops` closes it first). */
export async function startMigratedBenchPostgres(name: string, stops: Stops): Promise<{ dataDir: string; url: string; db: Client }> {
  const pg = await startBenchPostgres(name, stops);
  const orm = await createOrm(pg.url);
  await migrate(orm);
  await orm.close();
  const db = new Client(pgClientConfig(pg.url));
  await db.connect();
  stops.push(() => db.end());
  return { ...pg, db };
}
