import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from '../common/logger';
import { SecretBox } from '../common/secret-box';
import type { Config } from '../config/config';
import { databasePoolMin } from '../config/database-pool';
import { createOrm } from '../db/orm';
import { PgNotifications } from '../db/pg-notifications';
import { createTemporalClient, temporalSettings } from '../temporal/client';
import { createLogger } from '../common/logger';
import { startTracing, stopTracing } from '../telemetry/tracing';

/**
 * The process-wide dependencies, built once at start-up and handed to the
 * HTTP app, the GraphQL schema and the worker. Nothing else reaches for
 * globals; tests build their own container.
 */
export interface AppContainer {
  config: Config;
  orm: MikroORM;
  secrets: SecretBox;
  temporal: Client;
  log: Logger;
  /** The process's shared LISTEN connection (src/db/pg-notifications.ts). */
  notifications: PgNotifications;
  /**
   * Things to stop on shutdown, last registered first; `first: true` ones run
   * before all others (telling connected clients, e.g. WebSockets closed with
   * 1012, before the parts they use stop).
   */
  onClose(name: string, fn: () => Promise<void> | void, opts?: { first?: boolean }): void;
  close(): Promise<void>;
}

interface Closer {
  name: string;
  fn: () => Promise<void> | void;
}

export async function createContainer(config: Config, log: Logger = createLogger(config.LOG_LEVEL)): Promise<AppContainer> {
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL is not set');
  const orm = await createOrm(config.DATABASE_URL, { pool: { min: databasePoolMin(config), max: config.DATABASE_POOL_MAX } });
  // Before the Temporal client: it gets the tracing interceptors when OTEL_EXPORTER_OTLP_ENDPOINT is set.
  const tracingStarted = startTracing(config);
  const temporal = createTemporalClient(temporalSettings(config));
  const notifications = new PgNotifications(config.DATABASE_URL, log);
  const closers: Closer[] = [
    { name: 'database pool', fn: () => orm.close() },
    { name: 'temporal client', fn: () => temporal.connection.close() },
    { name: 'notifications', fn: () => notifications.close() },
    ...(tracingStarted ? [{ name: 'tracing', fn: () => stopTracing() }] : []),
  ];
  const firstClosers: Closer[] = [];
  return {
    config,
    orm,
    secrets: new SecretBox(config.encryptionKeys),
    temporal,
    log,
    notifications,
    onClose: (name, fn, opts) => (opts?.first ? firstClosers : closers).push({ name, fn }),
    close: async () => {
      for (const { name, fn } of [...firstClosers, ...closers.reverse()]) {
        const began = performance.now();
        // A step that hangs names itself (the launcher's final line would otherwise just never come).
        const slow = setTimeout(() => log.warn({ step: name }, 'shutdown step still running after 5 s'), 5_000);
        try {
          await fn();
        } catch (err) {
          log.warn({ err, step: name }, 'error during shutdown');
        } finally {
          clearTimeout(slow);
          log.debug({ step: name, ms: Math.round(performance.now() - began) }, 'shutdown step done');
        }
      }
    },
  };
}
