import { z } from 'zod';
import { ConfigError } from './config-error';
import { PgSslSettingError, pgSslOptions, withSslParams } from '../db/pg-connection';
import { type OAuthProviders, parseOAuthProviders } from '../oauth/oauth-config';
import { type TemporalTls, parseTemporalTls } from './temporal-tls';

/**
 * Every environment variable the service reads, in one place, each with its
 * default and a one-line meaning: `.env.example` is generated from this schema
 * (`npm run config:example`), `relay config` prints it with the values in use,
 * and docs/configuration.md explains it. Invalid values stop start-up with a
 * message that names the variable.
 */

/** What a person reading `.env.example` or `relay config` needs about one setting. */
export interface SettingInfo {
  /** One line: what it does. */
  description: string;
  /** Shown when the schema has no default (the value is derived, or the feature is off). */
  defaultText?: string;
  /** Masked by `relay config`. */
  secret?: boolean;
}

export const settingInfo = z.registry<SettingInfo>();

/** Attaches its meaning (and, where the schema has none, what applies when it is unset) to a setting. */
function setting<T extends z.ZodType>(type: T, description: string, extra: Omit<SettingInfo, 'description'> = {}): T {
  settingInfo.add(type as z.ZodType, { description, ...extra });
  return type;
}

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const optionalUrl = z.union([z.literal(''), z.url()]).transform((v) => v || undefined);
const tlsFile = (what: string) => setting(z.string().optional(), `${what} (or its _DATA twin holding the PEM itself)`, { defaultText: 'none' });
const tlsData = (what: string, secret = false) => setting(z.string().optional(), `${what}, as PEM text (instead of the _PATH file)`, { defaultText: 'none', secret });
/** A chat platform's API root: without it the API refuses the destinations that would send through it (400 platform_not_configured). */
const chatApiRoot = (type: 'chat_a' | 'chat_b' | 'chat_c') =>
  setting(optionalUrl.optional(), `${type}'s API root, for bot-token sends`, {
    defaultText: type === 'chat_c' ? 'chat_c destinations are refused' : `${type} destinations with a bot token are refused; webhook URLs work`,
  });

export const settingsSchema = z.object({
  NODE_ENV: setting(z.enum(['development', 'production', 'test']).default('development'), '`production` requires the secrets, DATABASE_URL, TEMPORAL_ADDRESS and PUBLIC_BASE_URL, and refuses destinations on private networks'),
  LOG_LEVEL: setting(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'), 'log level (`silent` … `trace`)'),
  LOG_FORMAT: setting(z.enum(['json', 'pretty']).optional(), '`json` lines or `pretty` readable lines', { defaultText: 'pretty on a terminal, else json' }),

  HOST: setting(z.string().min(1).default('127.0.0.1'), 'address the API listens on'),
  PORT: setting(int(0, 65535).default(3000), 'port the API listens on'),
  PUBLIC_BASE_URL: setting(optionalUrl.optional(), 'base of the ingress URLs and links shown to users (the address users open)', { defaultText: 'http://localhost:$PORT outside production; required in production' }),

  DATABASE_URL: setting(optionalUrl.optional(), 'PostgreSQL connection string', { defaultText: 'relay start runs an embedded PostgreSQL under RELAY_DATA_DIR', secret: true }),
  DATABASE_POOL_MAX: setting(int(1, 200).default(20), 'database connections per process'),
  /** Connections each process keeps open (unset: 0, but WORKER_POOL_MIN in processes that run the worker: src/config/database-pool.ts). */
  DATABASE_POOL_MIN: setting(int(0, 200).optional(), 'connections a process keeps open, so a burst of attempts finds them warm', { defaultText: '12 where the worker runs (relay start, relay worker), else 0' }),
  /** Folded into DATABASE_URL as libpq's `sslmode` / `sslrootcert` (src/db/pg-connection.ts); unset: the URL's own. */
  DATABASE_SSL_MODE: setting(z.enum(['disable', 'require', 'verify-ca', 'verify-full']).optional(), 'TLS to PostgreSQL: disable, require, verify-ca or verify-full (libpq meanings)', { defaultText: "the URL's sslmode, else disable" }),
  DATABASE_SSL_CA: setting(z.string().min(1).optional(), "PEM file of the CA that signed PostgreSQL's certificate", { defaultText: "the URL's sslrootcert, else the system CAs" }),

  TEMPORAL_ADDRESS: setting(z.string().optional(), 'Temporal frontend host:port', { defaultText: 'relay start runs a Temporal dev server on RELAY_TEMPORAL_PORT' }),
  TEMPORAL_NAMESPACE: setting(z.string().min(1).default('default'), 'Temporal namespace'),
  TEMPORAL_TASK_QUEUE: setting(z.string().min(1).default('relay-deliveries'), 'task queue of the delivery workflows (the same for every worker)'),
  TEMPORAL_UI_URL: setting(optionalUrl.optional(), "the Temporal web UI's address: each delivery links to its workflow there (dashboard and API)", {
    defaultText: "relay start's own dev server UI when it runs one; else no links",
  }),
  TEMPORAL_CLI_PATH: setting(z.string().optional(), 'the `temporal` binary relay start uses for the dev server', { defaultText: 'temporal on PATH, else installed under RELAY_DATA_DIR/tools' }),
  /** TLS, mutual TLS and API key of the Temporal connection (src/config/temporal-tls.ts). */
  TEMPORAL_TLS: setting(bool.optional(), 'true/false: TLS to the Temporal frontend', { defaultText: 'on when any TEMPORAL_TLS_* setting or TEMPORAL_API_KEY is set' }),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: tlsFile("PEM file of the CA that signed the Temporal frontend's certificate"),
  TEMPORAL_TLS_SERVER_CA_CERT_DATA: tlsData("the CA of the Temporal frontend's certificate"),
  TEMPORAL_TLS_CLIENT_CERT_PATH: tlsFile('client certificate for mutual TLS with Temporal'),
  TEMPORAL_TLS_CLIENT_CERT_DATA: tlsData('the client certificate for mutual TLS'),
  TEMPORAL_TLS_CLIENT_KEY_PATH: tlsFile("the client certificate's private key"),
  TEMPORAL_TLS_CLIENT_KEY_DATA: tlsData("the client certificate's private key", true),
  TEMPORAL_TLS_SERVER_NAME: setting(z.string().optional(), "name to verify in the Temporal frontend's certificate", { defaultText: "the address's host" }),
  TEMPORAL_API_KEY: setting(z.string().optional(), 'Temporal API key (Temporal Cloud, or a JWT for a JWT authorizer); implies TLS', { defaultText: 'none', secret: true }),

  RELAY_DATA_DIR: setting(z.string().min(1).default('.relay'), "relay start's data: embedded PostgreSQL, Temporal dev database, development secrets"),
  RELAY_PG_PORT: setting(int(1, 65535).default(54329), 'port of the embedded PostgreSQL'),
  RELAY_TEMPORAL_PORT: setting(int(1, 65535).default(7233), 'port of the Temporal dev server'),
  RELAY_TEMPORAL_UI_PORT: setting(int(1, 65535).default(8233), "port of the Temporal dev server's web UI"),

  /** `kid:base64key[,kid:base64key…]`; the first key encrypts, all keys decrypt. */
  RELAY_ENCRYPTION_KEYS: setting(z.string().optional(), 'kid:base64key[,kid:base64key…]: 32-byte AES-256-GCM keys for secrets at rest; the first encrypts, all decrypt', { defaultText: 'generated into RELAY_DATA_DIR/dev-secrets.json outside production', secret: true }),
  RELAY_JWT_SECRET: setting(z.string().min(32).optional(), 'HMAC secret of access tokens, 32+ characters', { defaultText: 'generated into RELAY_DATA_DIR/dev-secrets.json outside production', secret: true }),
  RELAY_ACCESS_TOKEN_TTL_SECONDS: setting(int(60, 86400).default(900), 'access token lifetime'),
  RELAY_REFRESH_TOKEN_TTL_SECONDS: setting(int(3600, 90 * 86400).default(30 * 86400), 'refresh token lifetime'),
  /** How long a just-rotated refresh token may be presented again for the same successor (src/accounts/session.service.ts); 0 = never. */
  RELAY_REFRESH_REUSE_GRACE_SECONDS: setting(int(0, 300).default(30), 'how long a just-rotated refresh token is accepted again for the same successor (0: never)'),
  RELAY_INVITE_TTL_SECONDS: setting(int(300, 90 * 86400).default(7 * 86400), 'how long an organization invite can be accepted'),
  RELAY_OAUTH_STATE_TTL_SECONDS: setting(int(60, 3600).default(600), 'how long a started OAuth authorization may take before its callback'),
  /** Management API (`/v1`, `/graphql`) requests per credential and window; 0 turns the limit off. */
  RELAY_API_RATE_LIMIT: setting(int(0, 1_000_000).default(600), 'management API (/v1, /graphql) units per credential and window (0: off)'),
  RELAY_API_RATE_WINDOW_SECONDS: setting(int(1, 3600).default(60), "the management rate limit's window"),
  /** GraphQL document bounds (src/graphql/query-limits.ts), checked before validation and execution. */
  RELAY_GRAPHQL_MAX_DOCUMENT_BYTES: setting(int(256, 10 * 1024 * 1024).default(64 * 1024), 'largest GraphQL document'),
  RELAY_GRAPHQL_MAX_DEPTH: setting(int(2, 100).default(15), 'deepest GraphQL selection'),
  RELAY_GRAPHQL_MAX_ALIASES: setting(int(0, 10_000).default(50), 'most aliases in one GraphQL document'),
  RELAY_GRAPHQL_MAX_COST: setting(int(10, 10_000_000).default(10_000), 'highest cost of one GraphQL document (pages multiply)'),
  /** Page rows (list items returned, REST and GraphQL alike) that cost one unit of RELAY_API_RATE_LIMIT; a request costs at least one. */
  RELAY_API_ROWS_PER_UNIT: setting(int(1, 1_000_000).default(50), 'list rows returned that cost one unit of RELAY_API_RATE_LIMIT (a request costs at least one)'),
  /** Reverse proxies in front that append to X-Forwarded-For; 0 ignores the header (src/http/client-address.ts). */
  RELAY_TRUST_PROXY: setting(int(0, 10).default(0), 'reverse proxies in front of the API that append to X-Forwarded-For (0: ignore the header)'),
  /** Sign-in throttle (src/auth/auth-throttle.ts): failed logins per account before lockouts, first lockout, longest lockout; 0 failures turns it off. */
  RELAY_LOGIN_MAX_FAILURES: setting(int(0, 1000).default(5), 'failed logins in a row before an account is locked (0: off)'),
  RELAY_LOGIN_LOCKOUT_SECONDS: setting(int(1, 3600).default(30), 'first lockout, doubled with each further failure'),
  RELAY_LOGIN_LOCKOUT_MAX_SECONDS: setting(int(1, 86400).default(900), 'longest lockout'),
  /** Per client IP and window: signups, failed logins, failed refreshes (each counted apart); 0 turns it off. */
  RELAY_AUTH_IP_LIMIT: setting(int(0, 1_000_000).default(30), 'signups, failed logins and failed refreshes per client address and window (0: off)'),
  RELAY_AUTH_IP_WINDOW_SECONDS: setting(int(1, 3600).default(60), "the per-address sign-in limit's window"),

  /** An events search (`contains`, `q`) that runs longer is canceled: 400 `search_too_broad` (src/events/event-search.ts). */
  RELAY_SEARCH_TIMEOUT_MS: setting(int(1, 600_000).default(5000), 'an events search running longer is canceled (400 search_too_broad)'),
  /** The query that finds a bulk action's deliveries (its preview count, its start) is canceled past this: 400 `bulk_too_broad` (src/bulk-actions). */
  RELAY_BULK_QUERY_TIMEOUT_MS: setting(int(1, 600_000).default(10_000), 'finding a bulk action\'s deliveries running longer is canceled (400 bulk_too_broad)'),
  RELAY_MAX_BODY_BYTES: setting(int(1024, 64 * 1024 * 1024).default(1024 * 1024), 'largest accepted request body (413 above)'),
  /** A client must send its complete request headers within this time, and the whole request within the next (src/http/server.ts); else 408 and the socket is closed. */
  RELAY_HTTP_HEADERS_TIMEOUT_MS: setting(int(100, 600_000).default(60_000), 'a client must send its request headers within this time (408 after)'),
  RELAY_HTTP_REQUEST_TIMEOUT_MS: setting(int(1000, 3_600_000).default(300_000), 'a client must send its whole request within this time (408 after)'),
  RELAY_DELIVERY_TIMEOUT_MS: setting(int(100, 300_000).default(30_000), "one delivery attempt's time limit"),
  /** Capacity and isolation (docs/internals/delivery.md "Capacity and isolation"). Attempts in flight per destination, all workers together. */
  RELAY_DESTINATION_MAX_CONCURRENCY: setting(int(1, 1000).default(10), "attempts in flight per destination, all workers together (a destination's max_concurrency wins)"),
  /** Started deliveries awaiting their first attempt, per destination and per project (the fair dispatcher's windows) and in all. */
  RELAY_DISPATCH_DESTINATION_WINDOW: setting(int(1, 10_000).default(32), 'started deliveries awaiting their first attempt, per destination'),
  RELAY_DISPATCH_PROJECT_WINDOW: setting(int(1, 100_000).default(256), 'started deliveries awaiting their first attempt, per project'),
  RELAY_DISPATCH_WINDOW: setting(int(1, 100_000).default(2000), 'started deliveries awaiting their first attempt, in all'),
  /** Circuit breaker: consecutive connection errors or timeouts that open it, first cool-down, longest cool-down. */
  RELAY_CIRCUIT_FAILURE_THRESHOLD: setting(int(1, 1000).default(5), "connection errors or timeouts in a row that open a destination's circuit"),
  RELAY_CIRCUIT_COOLDOWN_SECONDS: setting(int(1, 86_400).default(30), 'first cool-down of an open circuit, doubled after a failed probe'),
  RELAY_CIRCUIT_MAX_COOLDOWN_SECONDS: setting(int(1, 86_400).default(300), 'longest cool-down of an open circuit'),
  RELAY_OPERATIONAL_EVENT_WINDOW_SECONDS: setting(
    int(0, 86_400).default(60),
    'operational events (docs/operational-events.md): at most one per destination and kind in this many seconds, the rest counted into one; 0: no coalescing',
  ),
  /** Inferred schemas and silence (docs/schemas.md). */
  RELAY_SCHEMA_WARMUP_EVENTS: setting(int(1, 100_000).default(20), "events of a type learned before its payload changes alert, and of a source before a new event type does"),
  RELAY_SCHEMA_WARMUP_SECONDS: setting(int(0, 2_592_000).default(86_400), "seconds a source learns its event types (from its first event) before a new one alerts"),
  RELAY_SILENCE_CHECK_SECONDS: setting(int(1, 3600).default(60), 'how often a worker looks for sources that went quiet past their expectation'),
  /** Worker slots: local activities (attempts: mostly waiting on receivers, so many) and workflow tasks (CPU). */
  RELAY_WORKER_MAX_ATTEMPTS: setting(int(1, 100_000).default(2000), "a worker's attempt slots (mostly waiting on receivers)"),
  RELAY_WORKER_MAX_WORKFLOW_TASKS: setting(int(1, 10_000).default(200), "a worker's workflow-task slots (CPU)"),
  /** Debug: log the path to the send of every attempt slower than this many ms (src/worker/attempt-timing.ts); unset: off. */
  RELAY_ATTEMPT_TIMING_MS: setting(int(0, 600_000).optional(), 'debug: a worker logs where each attempt slower than this (ms) spent its path to the send', { defaultText: 'off' }),
  RELAY_ALLOW_PRIVATE_NETWORKS: setting(bool.default(false), 'in production, allow destinations on private, loopback and link-local addresses'),
  /** Chat platform API bases for bot-token sends (docs/delivery.md#chat-destinations); webhook-URL sends need none. */
  CHAT_A_API_BASE_URL: chatApiRoot('chat_a'),
  CHAT_B_API_BASE_URL: chatApiRoot('chat_b'),
  CHAT_C_API_BASE_URL: chatApiRoot('chat_c'),
  RELAY_EVENT_RETENTION_DAYS: setting(int(1, 3650).default(30), "days events are kept (a project's retention_days wins)"),
  RELAY_RUN_WORKER: setting(bool.default(true), 'whether relay start runs the worker in its process'),
  /** After SIGTERM, how long an API process answers 503 on /readyz while still serving before it closes its listener (src/health/drain.ts); unset: 5000 in production, 0 elsewhere. */
  RELAY_DRAIN_DELAY_MS: setting(int(0, 600_000).optional(), "after SIGTERM, how long an API process keeps serving while /readyz answers 503; above your load balancer's check period", { defaultText: '5000 in production, else 0' }),
  /** The built dashboard served at `/` (src/http/dashboard.ts); default dashboard/dist in the package. */
  RELAY_DASHBOARD_DIR: setting(z.string().min(1).optional(), 'the built dashboard served at /', { defaultText: 'dashboard/dist' }),
  /**
   * The metrics listeners (src/metrics/metrics-server.ts): `/metrics`, `/healthz`, `/readyz` on a port apart from the public one.
   * Who reads `/metrics` on the API's own port: src/metrics/metrics-access.ts.
   */
  RELAY_METRICS_PORT: setting(int(0, 65535).optional(), 'relay api serves Prometheus /metrics, /healthz and /readyz on this port of RELAY_METRICS_HOST', {
    defaultText: 'no listener; outside production the API port serves /metrics',
  }),
  RELAY_WORKER_METRICS_PORT: setting(int(0, 65535).optional(), 'relay worker serves Prometheus /metrics, /healthz and /readyz on this port of RELAY_METRICS_HOST', { defaultText: 'no listener' }),
  RELAY_METRICS_HOST: setting(z.string().min(1).optional(), 'address the metrics listeners (RELAY_METRICS_PORT, RELAY_WORKER_METRICS_PORT) listen on', { defaultText: 'HOST' }),
  RELAY_METRICS_TOKEN: setting(z.string().min(16).optional(), 'bearer token every /metrics then requires (16+ characters); with it the API port serves /metrics in production too', {
    defaultText: 'none',
    secret: true,
  }),
  /** OTLP/HTTP collector base URL (…/v1/traces is appended); unset: tracing off (src/telemetry/tracing.ts). */
  OTEL_EXPORTER_OTLP_ENDPOINT: setting(optionalUrl.optional(), 'export OpenTelemetry traces over OTLP/HTTP to this endpoint', { defaultText: 'tracing off' }),
});

const schema = settingsSchema;

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

export interface LoadOptions {
  /**
   * The command builds no link for anyone (`relay migrate`): production does not require PUBLIC_BASE_URL of it.
   * Every other process does: a worker puts it into operational events' `dashboard_url`, the API into ingress URLs.
   */
  noLinks?: boolean;
}

/** Parses `env` (default `process.env`); throws ConfigError naming the variable that is wrong. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, opts: LoadOptions = {}): Config {
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
    // Each says how to make the value: a first production start should not need the docs to get past this.
    if (encryptionKeys.length === 0) throw new ConfigError('RELAY_ENCRYPTION_KEYS: required in production; make one with RELAY_ENCRYPTION_KEYS=k1:$(openssl rand -base64 32) and keep it (it decrypts the stored secrets)');
    if (!values.RELAY_JWT_SECRET) throw new ConfigError('RELAY_JWT_SECRET: required in production (32+ characters); make one with RELAY_JWT_SECRET=$(openssl rand -base64 48)');
    if (!values.DATABASE_URL) throw new ConfigError('DATABASE_URL: required in production (postgres://user:password@host:5432/db); relay start runs its own PostgreSQL only outside production');
    if (!values.TEMPORAL_ADDRESS) throw new ConfigError('TEMPORAL_ADDRESS: required in production (host:7233 of your Temporal cluster); relay start runs a Temporal dev server only outside production');
    // Derived from PORT it would be a localhost address that users, senders and alert receivers cannot open.
    if (!values.PUBLIC_BASE_URL && !opts.noLinks) {
      throw new ConfigError('PUBLIC_BASE_URL: required in production (https://relay.example.com: the address users and senders reach); ingress URLs and dashboard links are built from it');
    }
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
