import { PassThrough } from 'node:stream';
import { createContainer } from '../../src/app/container';
import { createLogger } from '../../src/common/logger';
import { type ApiServer, startApiServer } from '../../src/http/server';
import { rest } from '../support/api';
import { PASSWORD, uniqueEmail } from '../support/accounts';
import { createTestDatabase, type TestDatabase, testConfig, uniqueTaskQueue } from '../support/test-env';

describe('a failed statement is logged without its bound values', () => {
  let db: TestDatabase;
  let server: ApiServer;
  let close: () => Promise<void>;
  let logged = '';

  beforeAll(async () => {
    db = await createTestDatabase();
    // The most verbose level: no level may print parameters.
    const config = testConfig({ DATABASE_URL: db.url, TEMPORAL_TASK_QUEUE: uniqueTaskQueue(), LOG_LEVEL: 'trace' });
    const stream = new PassThrough();
    stream.on('data', (chunk: Buffer) => (logged += chunk.toString()));
    const container = await createContainer(config, createLogger(config.LOG_LEVEL, 'relay', stream));
    server = await startApiServer(container, 0, '127.0.0.1');
    close = async () => {
      await server.close();
      await container.close();
      await db.drop();
    };
    // A real failure inside PostgreSQL for the insert a signup makes, with the argon2 hash among its parameters.
    const knex = container.orm.em.getConnection().getKnex();
    await knex.raw(`create function refuse_user() returns trigger language plpgsql as $$ begin raise exception 'users are read-only in this test'; end $$`);
    await knex.raw('create trigger refuse_user before insert on users for each row execute function refuse_user()');
  });
  afterAll(() => close());

  it('names the statement and the error code, never the email, the password or its hash', async () => {
    const email = uniqueEmail('leak-check');
    const res = await rest(server.url, 'POST', '/v1/auth/signup', { body: { email, password: PASSWORD, name: 'Private Name' } });
    expect(res.status).toBe(500);
    await new Promise((r) => setImmediate(r));
    const lines = logged.split('\n').filter((l) => l.includes('request failed'));
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]);
    expect(entry.err.code).toBe('P0001');
    expect(entry.err.message).toMatch(/insert into "users"/);
    expect(entry.err.message).toMatch(/users are read-only in this test/);
    for (const value of [email, PASSWORD, 'Private Name', '$argon2id$']) expect(logged).not.toContain(value);
  });
});
