import fs from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { ClientConfig } from 'pg';
import { readPemCertificates } from '../common/pem';
import { ConfigError } from '../config/config-error';

/**
 * PostgreSQL over TLS, the way libpq spells it: `sslmode` and `sslrootcert` (plus
 * `sslcert` / `sslkey` for a client certificate) in the query string of a
 * connection URL. `DATABASE_SSL_MODE` / `DATABASE_SSL_CA` are folded into
 * `DATABASE_URL` by src/config/config.ts, so every consumer that takes a URL (the
 * ORM and its migrations, LISTEN/NOTIFY, ingress's pool, the launchers, the benches
 * and tests) gets the same TLS settings by passing it through `pgClientConfig`.
 *
 * Modes: `disable` (plain TCP, the default), `require` (TLS; the server's
 * certificate is checked only when `sslrootcert` is given, as libpq does),
 * `verify-ca` (chain checked against `sslrootcert`, or the system CAs) and
 * `verify-full` (chain and host name). `allow` / `prefer` are refused: node-postgres
 * cannot fall back from TLS to plain TCP, so they could only mean one or the other.
 */
export const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

const SSL_PARAMS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'ssl'];

/** A setting's problem, naming the URL parameter at fault; config.ts renames it to the variable it came from. */
export class PgSslSettingError extends Error {
  constructor(
    readonly param: 'sslmode' | 'sslrootcert' | 'sslcert' | 'sslkey',
    message: string,
  ) {
    super(message);
    this.name = 'PgSslSettingError';
  }
}

function readFile(param: 'sslrootcert' | 'sslcert' | 'sslkey', file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new PgSslSettingError(param, `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

/** The TLS options of a connection URL (`false`: plain TCP); reads and checks the certificate files. */
export function pgSslOptions(databaseUrl: string): false | ConnectionOptions {
  const params = new URL(databaseUrl).searchParams;
  const rawMode = params.get('sslmode') ?? (params.get('ssl') === 'true' ? 'require' : 'disable');
  if (!(SSL_MODES as readonly string[]).includes(rawMode)) {
    throw new PgSslSettingError('sslmode', `"${rawMode}" is not supported: use one of ${SSL_MODES.join(', ')} (node-postgres cannot fall back from TLS to plain TCP, so allow/prefer are refused)`);
  }
  const mode = rawMode as SslMode;
  if (mode === 'disable') return false;
  const options: ConnectionOptions = {};
  const rootCert = params.get('sslrootcert');
  if (rootCert && rootCert !== 'system') {
    options.ca = readFile('sslrootcert', rootCert);
    try {
      readPemCertificates(options.ca);
    } catch (err) {
      throw new PgSslSettingError('sslrootcert', `${rootCert}: ${(err as Error).message}`);
    }
  }
  const cert = params.get('sslcert');
  const key = params.get('sslkey');
  if (cert || key) {
    if (!cert || !key) throw new PgSslSettingError(cert ? 'sslkey' : 'sslcert', 'a client certificate needs both sslcert and sslkey');
    options.cert = readFile('sslcert', cert);
    options.key = readFile('sslkey', key);
  }
  // libpq's `require` checks the chain only when a root certificate is given.
  options.rejectUnauthorized = mode !== 'require' || Boolean(rootCert);
  // verify-ca: the chain, not the host name.
  if (mode !== 'verify-full') options.checkServerIdentity = () => undefined;
  return options;
}

/** The URL without its TLS parameters: node-postgres would otherwise parse them again and override `ssl`. */
export function withoutSslParams(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  for (const p of SSL_PARAMS) url.searchParams.delete(p);
  return url.toString();
}

/** node-postgres settings (a `Client` or `Pool`) for a connection URL, its TLS parameters applied. */
export function pgClientConfig(databaseUrl: string): ClientConfig {
  return { connectionString: withoutSslParams(databaseUrl), ssl: pgSslOptions(databaseUrl) };
}

/** The URL with `sslmode` / `sslrootcert` set (a value that is undefined leaves the URL's own). */
export function withSslParams(databaseUrl: string, settings: { sslmode?: string; sslrootcert?: string }): string {
  const url = new URL(databaseUrl);
  if (settings.sslmode) url.searchParams.set('sslmode', settings.sslmode);
  if (settings.sslrootcert) url.searchParams.set('sslrootcert', settings.sslrootcert);
  return url.toString();
}

/**
 * A connection failure caused by the TLS settings (an untrusted certificate, a host
 * name not in it, a server without TLS, one that requires it) as a ConfigError naming
 * the variable to look at; anything else (the server is down) is returned as it was.
 */
export function explainPgConnectError(err: unknown, databaseUrl: string): unknown {
  const message = String((err as Error)?.message ?? err);
  const text = `${(err as NodeJS.ErrnoException)?.code ?? ''} ${message}`;
  if (/Hostname\/IP does not match|ERR_TLS_CERT_ALTNAME_INVALID/i.test(text)) {
    return new ConfigError(`DATABASE_SSL_MODE: the PostgreSQL server's certificate does not name ${new URL(databaseUrl).hostname} (${message}); connect by a name it holds, or use verify-ca`);
  }
  if (/certificate|UNABLE_TO_VERIFY|SELF_SIGNED|CERT_|DEPTH_ZERO/i.test(text)) {
    return new ConfigError(`DATABASE_SSL_CA: the PostgreSQL server's certificate is not trusted (${message}); set DATABASE_SSL_CA (or sslrootcert) to the CA that signed it`);
  }
  if (/does not support SSL/i.test(message)) {
    return new ConfigError(`DATABASE_SSL_MODE: the PostgreSQL server does not accept TLS connections (${message})`);
  }
  if (/pg_hba\.conf .*no encryption/i.test(message)) {
    return new ConfigError(`DATABASE_SSL_MODE: the PostgreSQL server requires TLS (${message}); set DATABASE_SSL_MODE=verify-full (or require)`);
  }
  return err;
}
