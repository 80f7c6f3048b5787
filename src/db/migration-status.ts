import fs from 'node:fs';
import path from 'node:path';
import type { Migration } from '@mikro-orm/migrations';
import type { MikroORM } from '@mikro-orm/postgresql';
import { MIGRATIONS_DIR, MIGRATIONS_TABLE } from './orm';

/**
 * `relay migrate --status` and `--dry-run` (docs/operations.md "Upgrades"): what the database has applied and what
 * this version would apply, read without writing anything. MikroORM's own listing would first create the database
 * and its migrations table when missing, so both are read here: the files as the migrator finds them (its glob,
 * `!(*.d).{js,ts}`: sources in a checkout, compiled files in dist/) and the table's rows.
 */
export interface MigrationStatus {
  applied: Array<{ name: string; appliedAt: Date }>;
  pending: string[];
  /** Applied, but not among this version's files: the database was migrated by a newer version. */
  unknown: string[];
}

/** This version's migrations, in the order they apply (names begin with their UTC timestamp). */
export function migrationFiles(dir = MIGRATIONS_DIR): Array<{ name: string; file: string }> {
  return fs
    .readdirSync(dir)
    .filter((file) => /\.(js|ts)$/.test(file) && !/\.d\.ts$/.test(file))
    .map((file) => ({ name: file.replace(/\.(js|ts)$/, ''), file: path.join(dir, file) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export async function migrationStatus(orm: MikroORM, dir = MIGRATIONS_DIR): Promise<MigrationStatus> {
  const connection = orm.em.getConnection();
  const [{ present }] = await connection.execute<Array<{ present: boolean }>>(`select to_regclass(?) is not null as present`, [MIGRATIONS_TABLE]);
  const rows = present
    ? await connection.execute<Array<{ name: string; executed_at: Date }>>(`select name, executed_at from ${MIGRATIONS_TABLE} order by id`)
    : [];
  // Rows written by older MikroORM versions may carry the file's extension.
  const applied = rows.map((r) => ({ name: r.name.replace(/\.(js|ts)$/, ''), appliedAt: new Date(r.executed_at) }));
  const done = new Set(applied.map((a) => a.name));
  const files = migrationFiles(dir);
  const known = new Set(files.map((f) => f.name));
  return {
    applied,
    pending: files.filter((f) => !done.has(f.name)).map((f) => f.name),
    unknown: applied.filter((a) => !known.has(a.name)).map((a) => a.name),
  };
}

/**
 * The SQL each pending migration would run, in order, without running it: each migration's `up()` only collects
 * statements (`addSql`). One that queries the database itself while collecting (`this.execute`) is refused
 * rather than run.
 */
export async function pendingMigrationSql(orm: MikroORM, dir = MIGRATIONS_DIR): Promise<Array<{ name: string; statements: string[] }>> {
  const { pending } = await migrationStatus(orm, dir);
  const byName = new Map(migrationFiles(dir).map((f) => [f.name, f.file]));
  const out: Array<{ name: string; statements: string[] }> = [];
  for (const name of pending) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const exported = require(byName.get(name)!) as Record<string, unknown>;
    const MigrationClass = Object.values(exported).find((v) => typeof v === 'function') as new (...args: unknown[]) => Migration;
    const migration = new MigrationClass(orm.em.getDriver(), orm.config);
    migration.execute = () => Promise.reject(new Error(`${name} queries the database while building its SQL: a dry run cannot show it without running it`));
    await migration.up();
    out.push({ name, statements: migration.getQueries().map((q) => (typeof q === 'string' ? q : q.toString())) });
  }
  return out;
}
