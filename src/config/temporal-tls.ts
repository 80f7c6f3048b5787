import fs from 'node:fs';
import { assertKeyMatchesCertificate, readPemCertificates, readPemPrivateKey } from '../common/pem';

/**
 * The Temporal connection's TLS and API-key settings, under the variable names the
 * Temporal CLI and SDKs' environment configuration use, so one environment serves
 * `temporal` and the relay alike:
 *
 * | variable | meaning |
 * |---|---|
 * | `TEMPORAL_TLS` | `true` / `false`; unset: on when any setting below is given |
 * | `TEMPORAL_TLS_SERVER_CA_CERT_PATH` / `_DATA` | CA that signed the frontend's certificate (default: the system's CAs) |
 * | `TEMPORAL_TLS_CLIENT_CERT_PATH` / `_DATA` | client certificate (mutual TLS), with… |
 * | `TEMPORAL_TLS_CLIENT_KEY_PATH` / `_DATA` | …its private key |
 * | `TEMPORAL_TLS_SERVER_NAME` | name to verify in the server's certificate instead of the address's host |
 * | `TEMPORAL_API_KEY` | API key (Temporal Cloud): sent as `authorization: Bearer …`; implies TLS |
 *
 * `_PATH` names a PEM file, `_DATA` holds the PEM itself (e.g. from a secret store);
 * giving both for one item is refused. Each file is read and parsed at start-up, and
 * any problem stops it with one line naming the variable.
 */
export interface TemporalTls {
  serverRootCACertificate?: Buffer;
  clientCertPair?: { crt: Buffer; key: Buffer };
  serverNameOverride?: string;
}

export interface TemporalTlsEnv {
  TEMPORAL_TLS?: boolean;
  TEMPORAL_TLS_SERVER_CA_CERT_PATH?: string;
  TEMPORAL_TLS_SERVER_CA_CERT_DATA?: string;
  TEMPORAL_TLS_CLIENT_CERT_PATH?: string;
  TEMPORAL_TLS_CLIENT_CERT_DATA?: string;
  TEMPORAL_TLS_CLIENT_KEY_PATH?: string;
  TEMPORAL_TLS_CLIENT_KEY_DATA?: string;
  TEMPORAL_TLS_SERVER_NAME?: string;
  TEMPORAL_API_KEY?: string;
}

type Item = 'SERVER_CA_CERT' | 'CLIENT_CERT' | 'CLIENT_KEY';

/** The PEM text of one item and the variable it came from, or undefined when neither form is set. */
function pemOf(env: TemporalTlsEnv, item: Item): { pem: string; variable: string } | undefined {
  const pathVar = `TEMPORAL_TLS_${item}_PATH` as const;
  const dataVar = `TEMPORAL_TLS_${item}_DATA` as const;
  const file = env[pathVar];
  const data = env[dataVar];
  if (file && data) throw new Error(`${pathVar}: set either ${pathVar} or ${dataVar}, not both`);
  if (data) return { pem: data, variable: dataVar };
  if (!file) return undefined;
  try {
    return { pem: fs.readFileSync(file, 'utf8'), variable: pathVar };
  } catch (err) {
    throw new Error(`${pathVar}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

/** Undefined: plain TCP. Throws an Error whose message starts with the variable at fault. */
export function parseTemporalTls(env: TemporalTlsEnv): TemporalTls | undefined {
  const ca = pemOf(env, 'SERVER_CA_CERT');
  const cert = pemOf(env, 'CLIENT_CERT');
  const key = pemOf(env, 'CLIENT_KEY');
  const serverName = env.TEMPORAL_TLS_SERVER_NAME || undefined;
  const anySetting = Boolean(ca || cert || key || serverName || env.TEMPORAL_API_KEY);
  if (env.TEMPORAL_TLS === false) {
    if (anySetting) throw new Error('TEMPORAL_TLS: is false, but TLS settings or TEMPORAL_API_KEY are set (an API key is only sent over TLS)');
    return undefined;
  }
  if (!anySetting && env.TEMPORAL_TLS !== true) return undefined;

  const tls: TemporalTls = {};
  if (ca) {
    try {
      readPemCertificates(ca.pem);
    } catch (err) {
      throw new Error(`${ca.variable}: ${(err as Error).message}`);
    }
    tls.serverRootCACertificate = Buffer.from(ca.pem);
  }
  if (cert || key) {
    if (!cert) throw new Error(`TEMPORAL_TLS_CLIENT_CERT_PATH: required with ${key!.variable} (mutual TLS needs the certificate and its key)`);
    if (!key) throw new Error(`TEMPORAL_TLS_CLIENT_KEY_PATH: required with ${cert.variable} (mutual TLS needs the certificate and its key)`);
    try {
      readPemCertificates(cert.pem);
    } catch (err) {
      throw new Error(`${cert.variable}: ${(err as Error).message}`);
    }
    let privateKey;
    try {
      privateKey = readPemPrivateKey(key.pem);
    } catch (err) {
      throw new Error(`${key.variable}: ${(err as Error).message}`);
    }
    try {
      assertKeyMatchesCertificate(cert.pem, privateKey);
    } catch (err) {
      throw new Error(`${key.variable}: ${(err as Error).message}`);
    }
    tls.clientCertPair = { crt: Buffer.from(cert.pem), key: Buffer.from(key.pem) };
  }
  if (serverName) tls.serverNameOverride = serverName;
  return tls;
}
