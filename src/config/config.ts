import { z } from 'zod';
import { ConfigError } from './config-error';
import { PgSslSettingError, pgSslOptions, withSslParams } from '../db/pg-connection';
import { type OAuthProviders, parseOAuthProviders } from '../oauth/oauth-config';
import { type TemporalTls, parseTemporalTls } from './temporal-tls';

/**
 * Every environment variable the service reads, in one place. Each one is
 * documented in the README's configuration table with its default; invalid
 * values stop start-up with a message that names the variable.
 */

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const optionalUrl = z.union([z.literal(''), z.url()]).transform((v) => v || undefined);

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: int(0, 65535).default(3000),
  PUBLIC_BASE_URL: optionalUrl.optional(),

  DATABASE_URL: optionalUrl.optional(),
  DATABASE_POOL_MAX: int(1, 200).default(20),
  /** Connections each process keeps open (unset: 0, but WORKER_POOL_MIN in processes that run the worker: src/worker/worker.ts). */
  DATABASE_POOL_MIN: int(0, 200).optional(),
  /** Folded into DATABASE_URL as libpq's `sslmode` / `sslrootcert` (src/db/pg-connection.ts); unset: the URL's own. */
  DATABASE_SSL_MODE: z.enum(['disable', 'require', 'verify-ca', 'verify-full']).optional(),
  DATABASE_SSL_CA: z.string().min(1).optional(),

  TEMPORAL_ADDRESS: z.string().optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('relay-deliveries'),
  TEMPORAL_CLI_PATH: z.string().optional(),
  /** TLS, mutual TLS and API key of the Temporal connection (src/config/temporal-tls.ts). */
  TEMPORAL_TLS: bool.optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: z.string().optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_DATA: z.string().optional(),
  TEMPORAL_TLS_CLIENT_CERT_PATH: z.string().optional(),
  TEMPORAL_TLS_CLIENT_CERT_DATA: z.string().optional(),
  TEMPORAL_TLS_CLIENT_KEY_PATH: z.string().optional(),
  TEMPORAL_TLS_CLIENT_KEY_DATA: z.string().optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().optional(),
  TEMPORAL_API_KEY: z.string().optional(),

  RELAY_DATA_DIR: z.string().min(1).default('.relay'),
  RELAY_PG_PORT: int(1, 65535).default(54329),
  RELAY_TEMPORAL_PORT: int(1, 65535).default(7233),
  RELAY_TEMPORAL_UI_PORT: int(1, 65535).default(8233),

  /** `kid:base64key[,kid:base64key…]`; the first key encrypts, all keys decrypt. */
  RELAY_ENCRYPTION_KEYS: z.string().optional(),
  RELAY_JWT_SECRET: z.string().min(32).optional(),
  RELAY_ACCESS_TOKEN_TTL_SECONDS: int(60, 86400).default(900),
  RELAY_REFRESH_TOKEN_TTL_SECONDS: int(3600, 90 * 86400).default(30 * 86400),
  /** How long a just-rotated refresh token may be presented again for the same successor (src/accounts/session.service.ts); 0 = never. */
  RELAY_REFRESH_REUSE_GRACE_SECONDS: int(0, 300).default(30),
  RELAY_INVITE_TTL_SECONDS: int(300, 90 * 86400).default(7 * 86400),
  RELAY_OAUTH_STATE_TTL_SECONDS: int(60, 3600).default(600),
  /** Management API (`/v1`, `/graphql`) requests per credential and window; 0 turns the limit off. */
  RELAY_API_RATE_LIMIT: int(0, 1_000_000).default(600),
  RELAY_API_RATE_WINDOW_SECONDS: int(1, 3600).default(60),
  /** GraphQL document bounds (src/graphql/query-limits.ts), checked before validation and execution. */
  RELAY_GRAPHQL_MAX_DOCUMENT_BYTES: int(256, 10 * 1024 * 1024).default(64 * 1024),
  RELAY_GRAPHQL_MAX_DEPTH: int(2, 100).default(15),
  RELAY_GRAPHQL_MAX_ALIASES: int(0, 10_000).default(50),
  RELAY_GRAPHQL_MAX_COST: int(10, 10_000_000).default(10_000),
  /** Page rows (list items returned, REST and GraphQL alike) that cost one unit of RELAY_API_RATE_LIMIT; a request costs at least one. */
  RELAY_API_ROWS_PER_UNIT: int(1, 1_000_000).default(50),
  /** Reverse proxies in front that append to X-Forwarded-For; 0 ignores the header (src/http/client-address.ts). */
  RELAY_TRUST_PROXY: int(0, 10).default(0),
  /** Sign-in throttle (src/auth/auth-throttle.ts): failed logins per account before lockouts, first lockout, longest lockout; 0 failures turns it off. */
  RELAY_LOGIN_MAX_FAILURES: int(0, 1000).default(5),
  RELAY_LOGIN_LOCKOUT_SECONDS: int(1, 3600).default(30),
  RELAY_LOGIN_LOCKOUT_MAX_SECONDS: int(1, 86400).default(900),
  /** Per client IP and window: signups, failed logins, failed refreshes (each counted apart); 0 turns it off. */
  RELAY_AUTH_IP_LIMIT: int(0, 1_000_000).default(30),
  RELAY_AUTH_IP_WINDOW_SECONDS: int(1, 3600).default(60),

  /** An events search (`contains`, `q`) that runs longer is canceled: 400 `search_too_broad` (src/events/event-search.ts). */
  RELAY_SEARCH_TIMEOUT_MS: int(1, 600_000).default(5000),
  RELAY_MAX_BODY_BYTES: int(1024, 64 * 1024 * 1024).default(1024 * 1024),
  /** A client must send its complete request headers within this time, and the whole request within the next (src/http/server.ts); else 408 and the socket is closed. */
  RELAY_HTTP_HEADERS_TIMEOUT_MS: int(100, 600_000).default(60_000),
  RELAY_HTTP_REQUEST_TIMEOUT_MS: int(1000, 3_600_000).default(300_000),
  RELAY_DELIVERY_TIMEOUT_MS: int(100, 300_000).default(30_000),
  /** Capacity and isolation (docs/delivery.md "Capacity and isolation"). Attempts in flight per destination, all workers together. */
  RELAY_DESTINATION_MAX_CONCURRENCY: int(1, 1000).default(10),
  /** Started deliveries awaiting their first attempt, per destination and per project (the fair dispatcher's windows) and in all. */
  RELAY_DISPATCH_DESTINATION_WINDOW: int(1, 10_000).default(32),
  RELAY_DISPATCH_PROJECT_WINDOW: int(1, 100_000).default(256),
  RELAY_DISPATCH_WINDOW: int(1, 100_000).default(2000),
  /** Circuit breaker: consecutive connection errors or timeouts that open it, first cool-down, longest cool-down. */
  RELAY_CIRCUIT_FAILURE_THRESHOLD: int(1, 1000).default(5),
  RELAY_CIRCUIT_COOLDOWN_SECONDS: int(1, 86_400).default(30),
  RELAY_CIRCUIT_MAX_COOLDOWN_SECONDS: int(1, 86_400).default(300),
  /** Worker slots: local activities (attempts: mostly waiting on receivers, so many) and workflow tasks (CPU). */
  RELAY_WORKER_MAX_ATTEMPTS: int(1, 100_000).default(2000),
  RELAY_WORKER_MAX_WORKFLOW_TASKS: int(1, 10_000).default(200),
  /** Debug: log the path to the send of every attempt slower than this many ms (src/worker/attempt-timing.ts); unset: off. */
  RELAY_ATTEMPT_TIMING_MS: int(0, 600_000).optional(),
  RELAY_ALLOW_PRIVATE_NETWORKS: bool.default(false),
  /** Chat platform API bases for bot-token sends (docs/behaviour.md#chat-destinations); webhook-URL sends need none. */
  CHAT_A_API_BASE_URL: optionalUrl.optional(),
  CHAT_B_API_BASE_URL: optionalUrl.optional(),
  CHAT_C_API_BASE_URL: optionalUrl.optional(),
  RELAY_EVENT_RETENTION_DAYS: int(1, 3650).default(30),
  RELAY_RUN_WORKER: bool.default(true),
  /** After SIGTERM, how long an API process answers 503 on /readyz while still serving before it closes its listener (src/health/drain.ts); unset: 5000 in production, 0 elsewhere. */
  RELAY_DRAIN_DELAY_MS: int(0, 600_000).optional(),
  /** The built dashboard served at `/` (src/http/dashboard.ts); default dashboard/dist in the package. */
  RELAY_DASHBOARD_DIR: z.string().min(1).optional(),
  /** `relay worker` serves its own `/metrics` here (HOST); unset: no listener. `relay start` shows them on the API's `/metrics`. */
  RELAY_WORKER_METRICS_PORT: int(0, 65535).optional(),
  /** OTLP/HTTP collector base URL (…/v1/traces is appended); unset: tracing off (src/telemetry/tracing.ts). */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl.optional(),
});

export type Config = z.infer<typeof schema> & {
  publicBaseUrl: string;
  encryptionKeys: EncryptionKey[];
  /** `OAUTH_<PROVIDER>_*` variables (src/oauth/oauth-config.ts). */
  oauthProviders: OAuthProviders;
  /** The Temporal connection's TLS (undefined: plain TCP), files read and checked. */
  temporalTls: TemporalTls | undefined;
};

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

export { ConfigError };

function parseEncryptionKeys(raw: string | undefined): EncryptionKey[] {
  if (!raw) return [];
  return raw.split(',').map((entry) => {
    const [id, b64] = entry.trim().split(':');
    const key = Buffer.from(b64 ?? '', 'base64');
    if (!id || !/^[A-Za-z0-9_-]{1,32}$/.test(id) || key.length !== 32) {
      throw new ConfigError(
        'RELAY_ENCRYPTION_KEYS: expected "kid:base64key[,kid:base64key]" with 32-byte (AES-256) keys, ' +
          'e.g. k1:$(openssl rand -base64 32)',
      );
    }
    return { id, key };
  });
}

/** Parses `env` (default `process.env`); throws ConfigError naming the variable that is wrong. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${String(issue.path[0])}: ${issue.message}`);
  }
  const values = parsed.data;
  if (values.DATABASE_URL) values.DATABASE_URL = databaseUrlWithSsl(values.DATABASE_URL, values.DATABASE_SSL_MODE, values.DATABASE_SSL_CA);
  let temporalTls: TemporalTls | undefined;
  try {
    temporalTls = parseTemporalTls(values);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const encryptionKeys = parseEncryptionKeys(values.RELAY_ENCRYPTION_KEYS);
  if (values.NODE_ENV === 'production') {
    if (encryptionKeys.length === 0) throw new ConfigError('RELAY_ENCRYPTION_KEYS: required in production');
    if (!values.RELAY_JWT_SECRET) throw new ConfigError('RELAY_JWT_SECRET: required in production (32+ characters)');
    if (!values.DATABASE_URL) throw new ConfigError('DATABASE_URL: required in production');
    if (!values.TEMPORAL_ADDRESS) throw new ConfigError('TEMPORAL_ADDRESS: required in production');
  }
  const publicBaseUrl = (values.PUBLIC_BASE_URL ?? `http://localhost:${values.PORT}`).replace(/\/$/, '');
  let oauthProviders: OAuthProviders;
  try {
    oauthProviders = parseOAuthProviders(env);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  return { ...values, publicBaseUrl, encryptionKeys, oauthProviders, temporalTls };
}

/**
 * DATABASE_SSL_MODE / DATABASE_SSL_CA override the URL's `sslmode` / `sslrootcert`;
 * the result is checked now (mode, CA file readable and PEM), naming the variable at fault.
 */
function databaseUrlWithSsl(databaseUrl: string, mode: string | undefined, ca: string | undefined): string {
  const url = withSslParams(databaseUrl, { sslmode: mode, sslrootcert: ca });
  try {
    pgSslOptions(url);
  } catch (err) {
    if (!(err instanceof PgSslSettingError)) throw err;
    const variable =
      err.param === 'sslmode' && mode ? 'DATABASE_SSL_MODE' : err.param === 'sslrootcert' && ca ? 'DATABASE_SSL_CA' : `DATABASE_URL (${err.param})`;
    throw new ConfigError(`${variable}: ${err.message}`);
  }
  return url;
}
