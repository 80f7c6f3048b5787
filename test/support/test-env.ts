import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { AppContainer } from '../../src/app/container';
import { createContainer } from '../../src/app/container';
import { createLogger } from '../../src/common/logger';
import { type Config, loadConfig } from '../../src/config/config';

import { TEMPLATE_DB, TEST_SECRETS } from './constants';

export { TEMPLATE_DB, TEST_SECRETS };

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh database cloned from the migrated template: each test file gets a clean schema. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.RELAY_TEST_ADMIN_DATABASE_URL;
  if (!adminUrl) throw new Error('RELAY_TEST_ADMIN_DATABASE_URL is not set: run through jest (test/support/global-setup.ts)');
  const name = `relay_test_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name} template ${TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A unique task queue per test file, so workers of parallel files never take each other's tasks. */
export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
    ...TEST_SECRETS,
    ...overrides,
  });
}

export interface TestContainer {
  container: AppContainer;
  db: TestDatabase;
  /** Closes the container, then drops its database. */
  close(): Promise<void>;
}

/** A container (ORM, secrets, Temporal client) on its own fresh database and task queue. */
export async function createTestContainer(overrides: Record<string, string> = {}): Promise<TestContainer> {
  const db = await createTestDatabase();
  const config = testConfig({ DATABASE_URL: db.url, TEMPORAL_TASK_QUEUE: uniqueTaskQueue(), ...overrides });
  const container = await createContainer(config, createLogger(config.LOG_LEVEL));
  return {
    container,
    db,
    close: async () => {
      await container.close();
      await db.drop();
    },
  };
}
