import 'reflect-metadata';
import path from 'node:path';
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities';

/** Top-level `migrations/` (or `dist/migrations/` when compiled). */
const migrationsDir = path.resolve(__dirname, '..', '..', 'migrations');

export function ormOptions(databaseUrl: string, overrides: Partial<Options> = {}): Options {
  return {
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    forceUtcTimezone: true,
    // Services fork an EntityManager per request (RequestContext); touching the global one is a bug.
    allowGlobalContext: false,
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    migrations: {
      path: migrationsDir,
      pathTs: migrationsDir,
      glob: '!(*.d).{js,ts}',
      tableName: 'mikro_orm_migrations',
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

export async function createOrm(databaseUrl: string, overrides: Partial<Options> = {}): Promise<MikroORM> {
  return MikroORM.init(ormOptions(databaseUrl, overrides));
}

/** Applies pending migrations; returns the names applied. */
export async function migrate(orm: MikroORM): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((m) => m.name);
}
