import 'reflect-metadata';
import path from 'node:path';
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities';
import { explainPgConnectError, pgSslOptions, withoutSslParams } from './pg-connection';

/** Top-level `migrations/` (or `dist/migrations/` when compiled). */
export const MIGRATIONS_DIR = path.resolve(__dirname, '..', '..', 'migrations');
/** Where MikroORM records each applied migration (name, executed_at). */
export const MIGRATIONS_TABLE = 'mikro_orm_migrations';

/** `databaseUrl`'s TLS parameters (sslmode, sslrootcert, …: src/db/pg-connection.ts) become the driver's `ssl`. */
export function ormOptions(databaseUrl: string, overrides: Partial<Options> = {}): Options {
  const ssl = pgSslOptions(databaseUrl);
  return {
    clientUrl: withoutSslParams(databaseUrl),
    ...(ssl ? { driverOptions: { connection: { ssl } } } : {}),
    entities,
    extensions: [Migrator],
    forceUtcTimezone: true,
    // Services fork an EntityManager per request (RequestContext); touching the global one is a bug.
    allowGlobalContext: false,
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    migrations: {
      path: MIGRATIONS_DIR,
      pathTs: MIGRATIONS_DIR,
      glob: '!(*.d).{js,ts}',
      tableName: MIGRATIONS_TABLE,
      // All pending migrations run in one transaction: one that fails leaves the database as it was before the run.
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      emit: 'ts',
      silent: true,
    },
    pool: { min: 0, max: 20 },
    debug: false,
    ...overrides,
  };
}

/** Connects at once: a TLS setting the server refuses stops start-up with one line naming the variable. */
export async function createOrm(databaseUrl: string, overrides: Partial<Options> = {}): Promise<MikroORM> {
  try {
    return await MikroORM.init(ormOptions(databaseUrl, overrides));
  } catch (err) {
    throw explainPgConnectError(err, databaseUrl);
  }
}

/** Applies pending migrations; returns the names applied. */
export async function migrate(orm: MikroORM): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((m) => m.name);
}
