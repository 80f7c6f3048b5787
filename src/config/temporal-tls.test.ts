import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeCa, makeCert } from '../../test/support/certificates';
import { loadConfig } from './config';

describe('Temporal TLS settings', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-temporal-tls-'));
  const ca = makeCa(dir, 'ca');
  const client = makeCert(dir, ca, 'client');
  const other = makeCert(dir, ca, 'other');
  const garbage = path.join(dir, 'garbage.pem');
  fs.writeFileSync(garbage, '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const load = (env: Record<string, string>) => loadConfig({ TEMPORAL_ADDRESS: 'temporal.example:7233', ...env });

  it('is plain TCP unless something asks for TLS', () => {
    expect(load({}).temporalTls).toBeUndefined();
    expect(load({ TEMPORAL_TLS: 'true' }).temporalTls).toEqual({});
    expect(load({ TEMPORAL_API_KEY: 'key' }).temporalTls).toEqual({});
  });

  it('reads the CA, the client pair and the server name, from files or inline', () => {
    const tls = load({
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca.cert,
      TEMPORAL_TLS_CLIENT_CERT_PATH: client.cert,
      TEMPORAL_TLS_CLIENT_KEY_DATA: fs.readFileSync(client.key, 'utf8'),
      TEMPORAL_TLS_SERVER_NAME: 'frontend.internal',
    }).temporalTls;
    expect(tls?.serverRootCACertificate?.toString()).toBe(fs.readFileSync(ca.cert, 'utf8'));
    expect(tls?.clientCertPair?.crt.toString()).toBe(fs.readFileSync(client.cert, 'utf8'));
    expect(tls?.serverNameOverride).toBe('frontend.internal');
  });

  it('names the variable at fault', () => {
    expect(() => load({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: path.join(dir, 'missing.crt') })).toThrow(/^TEMPORAL_TLS_SERVER_CA_CERT_PATH: cannot read .*missing\.crt \(ENOENT\)$/);
    expect(() => load({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: client.key })).toThrow(/^TEMPORAL_TLS_SERVER_CA_CERT_PATH: no PEM certificate/);
    expect(() => load({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: garbage })).toThrow(/^TEMPORAL_TLS_SERVER_CA_CERT_PATH: certificate 1 of the PEM bundle does not parse/);
    expect(() => load({ TEMPORAL_TLS_CLIENT_CERT_PATH: client.cert })).toThrow(/^TEMPORAL_TLS_CLIENT_KEY_PATH: required with TEMPORAL_TLS_CLIENT_CERT_PATH/);
    expect(() => load({ TEMPORAL_TLS_CLIENT_KEY_PATH: client.key })).toThrow(/^TEMPORAL_TLS_CLIENT_CERT_PATH: required/);
    expect(() => load({ TEMPORAL_TLS_CLIENT_CERT_PATH: client.cert, TEMPORAL_TLS_CLIENT_KEY_PATH: client.cert })).toThrow(/^TEMPORAL_TLS_CLIENT_KEY_PATH: no PEM private key/);
    expect(() => load({ TEMPORAL_TLS_CLIENT_CERT_PATH: client.cert, TEMPORAL_TLS_CLIENT_KEY_PATH: other.key })).toThrow(/^TEMPORAL_TLS_CLIENT_KEY_PATH: the private key is not the key of the certificate/);
    expect(() => load({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca.cert, TEMPORAL_TLS_SERVER_CA_CERT_DATA: 'x' })).toThrow(/^TEMPORAL_TLS_SERVER_CA_CERT_PATH: set either/);
    expect(() => load({ TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'key' })).toThrow(/^TEMPORAL_TLS: is false/);
  });
});

describe('PostgreSQL TLS settings', () => {
  const url = 'postgres://relay:relay@db.example:5432/relay';

  it('folds DATABASE_SSL_MODE / DATABASE_SSL_CA into DATABASE_URL, over the URL\'s own', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-pg-tls-'));
    const ca = makeCa(dir, 'ca');
    const folded = new URL(loadConfig({ DATABASE_URL: `${url}?sslmode=require`, DATABASE_SSL_MODE: 'verify-full', DATABASE_SSL_CA: ca.cert }).DATABASE_URL!);
    expect(folded.searchParams.get('sslmode')).toBe('verify-full');
    expect(folded.searchParams.get('sslrootcert')).toBe(ca.cert);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('names the variable at fault', () => {
    expect(() => loadConfig({ DATABASE_URL: url, DATABASE_SSL_MODE: 'prefer' })).toThrow(/^DATABASE_SSL_MODE:/);
    expect(() => loadConfig({ DATABASE_URL: `${url}?sslmode=allow` })).toThrow(/^DATABASE_URL \(sslmode\): "allow" is not supported/);
    expect(() => loadConfig({ DATABASE_URL: url, DATABASE_SSL_MODE: 'verify-ca', DATABASE_SSL_CA: '/nonexistent/ca.crt' })).toThrow(/^DATABASE_SSL_CA: cannot read \/nonexistent\/ca\.crt \(ENOENT\)$/);
  });
});
