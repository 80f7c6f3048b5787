import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client } from 'pg';
import { createOrm } from '../../src/db/orm';
import { migrationFiles } from '../../src/db/migration-status';
import { TEST_SECRETS } from '../support/test-env';

const RELAY = path.resolve(__dirname, '..', '..', 'bin', 'relay.js');

/** An empty database of its own (not the migrated template), dropped by the returned function. */
async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.RELAY_TEST_ADMIN_DATABASE_URL!;
  const name = `relay_migrate_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`).finally(() => admin.end());
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`).finally(() => c.end());
    },
  };
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows as T[];
  } finally {
    await c.end();
  }
}

/** The schema as text: tables, columns, constraints, indexes and functions; equal text, equal schema. */
const schemaOf = (url: string) =>
  query<{ item: string }>(
    url,
    `select c.table_name || '.' || c.column_name || ' ' || c.data_type as item from information_schema.columns c where c.table_schema = 'public'
     union all select conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) from pg_constraint where connamespace = 'public'::regnamespace
     union all select indexdef from pg_indexes where schemaname = 'public'
     union all select p.oid::regprocedure::text from pg_proc p where p.pronamespace = 'public'::regnamespace
     order by 1`,
  ).then((rows) => rows.map((r) => r.item).join('\n'));

const relay = (url: string, args: string[]) =>
  spawnSync(process.execPath, [RELAY, 'migrate', ...args], {
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn', DATABASE_URL: url, TEMPORAL_ADDRESS: '', ...TEST_SECRETS },
    encoding: 'utf8',
    timeout: 120_000,
  });

/**
 * Issue 35: `relay migrate --status` lists applied and pending migrations (exit 6 while any is pending) and
 * `--dry-run` prints the pending ones' SQL; neither writes anything. A run whose migration fails applies none of its
 * migrations (one transaction), so the operator fixes the cause and runs it again.
 */
describe('relay migrate --status and --dry-run, on a real PostgreSQL', () => {
  const names = migrationFiles().map((f) => f.name);
  let db: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(() => db?.drop());

  it('on an empty database: everything pending, its SQL printed, nothing written; then applied, nothing pending', async () => {
    expect(names.length).toBeGreaterThan(20);
    const status = relay(db.url, ['--status']);
    expect(status.stderr).toBe('');
    expect(status.status).toBe(6);
    const lines = status.stdout.trim().split('\n');
    expect(lines.slice(0, -1)).toEqual(names.map((name) => expect.stringMatching(new RegExp(`^pending +${name}$`))));
    expect(lines.at(-1)).toBe(`0 applied, ${names.length} pending: relay migrate applies them (in one transaction); relay migrate --dry-run shows their SQL`);

    const dry = relay(db.url, ['--dry-run']);
    expect(dry.stderr).toBe('');
    expect(dry.status).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`^-- relay migrate --dry-run: ${names.length} pending migration\\(s\\), not applied`));
    expect([...dry.stdout.matchAll(/^-- (Migration\S+)$/gm)].map((m) => m[1])).toEqual(names);
    expect(dry.stdout).toMatch(/^create table "events" \(/m);
    // Nothing was written: not even MikroORM's migrations table.
    expect(await schemaOf(db.url)).toBe('');

    const applied = relay(db.url, []);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toBe(`applied: ${names.join(', ')}\n`);
    const after = relay(db.url, ['--status']);
    expect(after.status).toBe(0);
    const afterLines = after.stdout.trim().split('\n');
    expect(afterLines.slice(0, -1)).toEqual(names.map((name) => expect.stringMatching(new RegExp(`^applied  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  ${name}$`))));
    expect(afterLines.at(-1)).toBe(`${names.length} applied, none pending: the database is up to date`);
    expect(relay(db.url, ['--dry-run']).stdout).toBe('-- nothing pending: the database is up to date\n');
  });

  it('a failed run applies none of its migrations; once the cause is gone the next run applies them', async () => {
    const failing = await freshDatabase();
    try {
      // Migrated up to the last two, as a database one release behind would be.
      const orm = await createOrm(failing.url);
      await orm.getMigrator().up({ to: names.at(-3) });
      await orm.close();
      // Recording the last one fails: its SQL and the one before it have run in the same transaction by then.
      await query(
        failing.url,
        `create function block_last() returns trigger language plpgsql as $$ begin
           if new.name = '${names.at(-1)}' then raise exception 'blocked by the test'; end if; return new; end $$;
         create trigger block_last before insert on mikro_orm_migrations for each row execute function block_last()`,
      );
      const before = await schemaOf(failing.url);

      const run = relay(failing.url, []);
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(/^relay: the migrations failed; none of this run's migrations were applied \(they run in one transaction\): .*blocked by the test.*\nFix the cause and run relay migrate again; relay migrate --status lists what is pending\.\n$/);
      expect(await schemaOf(failing.url)).toBe(before);
      const status = relay(failing.url, ['--status']);
      expect(status.status).toBe(6);
      expect(status.stdout).toMatch(new RegExp(`\\npending +${names.at(-2)}\\npending +${names.at(-1)}\\n${names.length - 2} applied, 2 pending`));

      await query(failing.url, 'drop trigger block_last on mikro_orm_migrations; drop function block_last()');
      const again = relay(failing.url, []);
      expect(again.stderr).toBe('');
      expect(again.stdout).toBe(`applied: ${names.slice(-2).join(', ')}\n`);
      expect(relay(failing.url, ['--status']).status).toBe(0);
    } finally {
      await failing.drop();
    }
  });
});
