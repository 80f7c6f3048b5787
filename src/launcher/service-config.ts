/**
 * How the service's commands read their settings (docs/configuration.md): the
 * environment, then `.env` in the working directory, then the schema's defaults,
 * then what the launcher derives; and `relay config`, which shows the result.
 */
import path from 'node:path';
import { createLogger } from '../common/logger';
import { ConfigError, type Config, type LoadOptions, loadConfig, settingsSchema } from '../config/config';
import { databasePoolMin, withWorkerPoolFloor } from '../config/database-pool';
import { type EnvFile, applyEnvFile } from '../config/env-file';
import { type Derived, describeSettings, envExample, unknownSettings } from '../config/settings-report';
import { drainDelayMs } from '../health/drain';
import { devSecretsFile, readDevSecrets, withDevSecrets } from './dev-secrets';
import { embeddedPostgresUrl } from './postgres';

let environment: { envFile: EnvFile | undefined; warned: boolean } | undefined;

/** Reads `.env` from the working directory into process.env once, before any setting is read: the real environment wins. */
function loadEnvironment(): NonNullable<typeof environment> {
  return (environment ??= { envFile: applyEnvFile(process.env), warned: false });
}

/** A setting's error says when its value came from `.env`. */
function withEnvFileSource(err: unknown, envFile: EnvFile | undefined): unknown {
  const name = err instanceof ConfigError ? err.message.split(':')[0] : undefined;
  return name && envFile?.applied.includes(name) ? new ConfigError(`${err instanceof Error ? err.message : ''} (set in ${envFile.path})`) : err;
}

/**
 * The configuration of a service command: `.env` applied first, an invalid value
 * naming the `.env` file it came from, unknown `RELAY_*` names warned about once.
 */
export function serviceConfig(env: NodeJS.ProcessEnv = process.env, opts: LoadOptions = {}): Config {
  const loaded = loadEnvironment();
  const dataDir = env.RELAY_DATA_DIR ?? '.relay';
  let cfg: Config;
  try {
    cfg = loadConfig(withDevSecrets(env, dataDir), opts);
  } catch (err) {
    throw withEnvFileSource(err, loaded.envFile);
  }
  if (!loaded.warned) {
    loaded.warned = true;
    const log = createLogger(cfg.LOG_LEVEL);
    for (const { name, suggestion } of unknownSettings(process.env)) {
      const from = loaded.envFile?.applied.includes(name) ? loaded.envFile.path : 'the environment';
      log.warn({ setting: name, from, suggestion }, `unknown setting ${name} (from ${from}): nothing reads it; did you mean ${suggestion}?`);
    }
  }
  return cfg;
}

/** The settings `relay temporal` needs, read as the service reads them (the environment, then `.env`, then defaults), and nothing else. */
export function temporalCliSettings(env: NodeJS.ProcessEnv = process.env) {
  const { envFile } = loadEnvironment();
  const parsed = settingsSchema
    .pick({ TEMPORAL_ADDRESS: true, TEMPORAL_NAMESPACE: true, TEMPORAL_CLI_PATH: true, TEMPORAL_TLS: true, RELAY_DATA_DIR: true, RELAY_TEMPORAL_PORT: true })
    .safeParse(env);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw withEnvFileSource(new ConfigError(`${String(issue.path[0])}: ${issue.message}`), envFile);
}

/** What `relay start` makes of the settings left unset, for `relay config`. */
function launcherDerived(cfg: Config, dataDir: string, devSecrets: ReturnType<typeof readDevSecrets>): Derived {
  return {
    LOG_FORMAT: { value: process.stdout.isTTY ? 'pretty' : 'json', note: process.stdout.isTTY ? 'stdout is a terminal' : 'stdout is not a terminal' },
    PUBLIC_BASE_URL: { value: cfg.publicBaseUrl, note: 'from PORT' },
    DATABASE_URL: { value: embeddedPostgresUrl(cfg.RELAY_PG_PORT), note: `relay start runs an embedded PostgreSQL in ${path.join(dataDir, 'postgres')}` },
    DATABASE_POOL_MIN: cfg.RELAY_RUN_WORKER
      ? { value: String(databasePoolMin(withWorkerPoolFloor(cfg))), note: 'relay start runs the worker' }
      : undefined,
    TEMPORAL_ADDRESS: { value: `127.0.0.1:${cfg.RELAY_TEMPORAL_PORT}`, note: 'relay start runs a Temporal dev server' },
    TEMPORAL_UI_URL: cfg.TEMPORAL_ADDRESS ? undefined : { value: `http://127.0.0.1:${cfg.RELAY_TEMPORAL_UI_PORT}`, note: "the dev server's web UI" },
    RELAY_ENCRYPTION_KEYS: devSecrets && { value: devSecrets.encryptionKeys, note: `development secret kept in ${devSecretsFile(dataDir)}` },
    RELAY_JWT_SECRET: devSecrets && { value: devSecrets.jwtSecret, note: `development secret kept in ${devSecretsFile(dataDir)}` },
    RELAY_DRAIN_DELAY_MS: { value: String(drainDelayMs(cfg)), note: `NODE_ENV=${cfg.NODE_ENV}` },
  };
}

/**
 * `relay config`: the configuration `relay start` would use here, secrets masked,
 * each value with where it came from; `--example` prints `.env.example` instead.
 * An invalid setting is printed with the rest, then reported (exit 78).
 */
export function showConfig(opts: { json?: boolean; example?: boolean }): void {
  if (opts.example) {
    process.stdout.write(envExample());
    return;
  }
  const { envFile } = loadEnvironment();
  const env = process.env;
  const dataDir = env.RELAY_DATA_DIR ?? '.relay';
  const devSecrets = env.NODE_ENV === 'production' ? undefined : readDevSecrets(dataDir);
  let problem: unknown;
  let derived: Derived = {};
  try {
    const cfg = loadConfig({ ...env, RELAY_ENCRYPTION_KEYS: env.RELAY_ENCRYPTION_KEYS || devSecrets?.encryptionKeys, RELAY_JWT_SECRET: env.RELAY_JWT_SECRET || devSecrets?.jwtSecret });
    derived = launcherDerived(cfg, dataDir, devSecrets);
  } catch (err) {
    problem = withEnvFileSource(err, envFile);
  }
  const rows = describeSettings(env, envFile, derived);
  const unknown = unknownSettings(env);
  if (opts.json) {
    process.stdout.write(JSON.stringify({ env_file: envFile?.path ?? null, settings: rows, unknown }, null, 2) + '\n');
  } else {
    const width = Math.min(72, Math.max(...rows.map((r) => r.name.length + 1 + (r.value ?? '').length)) + 2);
    const lines = [
      `Settings of relay start in ${process.cwd()}: the environment, then ${envFile ? envFile.path : 'a .env file (none here)'}, then defaults. Secrets are masked.`,
      '',
      ...rows.map((r) => `${`${r.name}=${r.value ?? ''}`.padEnd(width)}${r.source === 'unset' ? 'unset' : r.source}${r.note ? `: ${r.note}` : ''}`),
    ];
    if (envFile?.overridden.length) lines.push('', `The environment wins over ${envFile.path} for ${envFile.overridden.join(', ')}.`);
    if (unknown.length) lines.push('', ...unknown.map(({ name, suggestion }) => `unknown setting ${name}: nothing reads it; did you mean ${suggestion}?`));
    process.stdout.write(lines.join('\n') + '\n');
  }
  if (problem) throw problem;
}
