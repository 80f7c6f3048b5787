import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from '../common/logger';
import { SecretBox } from '../common/secret-box';
import type { Config } from '../config/config';
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
  onClose(fn: () => Promise<void> | void, opts?: { first?: boolean }): void;
  close(): Promise<void>;
}

export async function createContainer(config: Config, log: Logger = createLogger(config.LOG_LEVEL)): Promise<AppContainer> {
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL is not set');
  const orm = await createOrm(config.DATABASE_URL, { pool: { min: 0, max: config.DATABASE_POOL_MAX } });
  // Before the Temporal client: it gets the tracing interceptors when OTEL_EXPORTER_OTLP_ENDPOINT is set.
  const tracingStarted = startTracing(config);
  const temporal = createTemporalClient(temporalSettings(config));
  const notifications = new PgNotifications(config.DATABASE_URL, log);
  const closers: Array<() => Promise<void> | void> = [
    () => orm.close(),
    () => temporal.connection.close(),
    () => notifications.close(),
    ...(tracingStarted ? [() => stopTracing()] : []),
  ];
  const firstClosers: Array<() => Promise<void> | void> = [];
  return {
    config,
    orm,
    secrets: new SecretBox(config.encryptionKeys),
    temporal,
    log,
    notifications,
    onClose: (fn, opts) => (opts?.first ? firstClosers : closers).push(fn),
    close: async () => {
      for (const fn of [...firstClosers, ...closers.reverse()]) {
        try {
          await fn();
        } catch (err) {
          log.warn({ err }, 'error during shutdown');
        }
      }
    },
  };
}
