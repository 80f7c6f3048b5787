import { ConfigError } from '../config/config-error';
import { explainPermissionDenied, explainTemporalConnectError, jwtExpiry } from './client';

const jwt = (payload: object) => `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.c2ln`;
const denied = Object.assign(new Error('7 PERMISSION_DENIED: Request unauthorized.'), { code: 7 });
const settings = { address: '127.0.0.1:7233', namespace: 'relay', tls: {} };

describe('jwtExpiry', () => {
  it('reads exp from a JWT without checking it', () => {
    expect(jwtExpiry(jwt({ sub: 'relay', exp: 1_800_000_000 }))).toEqual(new Date(1_800_000_000_000));
  });
  it('is undefined for a key that is not a JWT or has no numeric exp', () => {
    expect(jwtExpiry('opaque-key')).toBeUndefined();
    expect(jwtExpiry('a.%%%.c')).toBeUndefined();
    expect(jwtExpiry(jwt({ sub: 'relay', exp: 'tomorrow' }))).toBeUndefined();
  });
});

describe('explainTemporalConnectError for a refused key', () => {
  it('says when an expired key expired', () => {
    const err = explainTemporalConnectError(denied, { ...settings, apiKey: jwt({ exp: 1_000_000_000 }) });
    expect(err).toEqual(new ConfigError('TEMPORAL_API_KEY: refused by the Temporal server: the key expired at 2001-09-09T01:46:40.000Z (7 PERMISSION_DENIED: Request unauthorized.)'));
  });
  it('names the signer otherwise', () => {
    const err = explainTemporalConnectError(denied, { ...settings, apiKey: jwt({ exp: Math.floor(Date.now() / 1000) + 60 }) });
    expect((err as Error).message).toMatch(/^TEMPORAL_API_KEY: refused by the Temporal server: not signed by a key it trusts, or revoked \(/);
  });
});

describe('explainPermissionDenied', () => {
  it('names the credential and the role the call needs', () => {
    expect(explainPermissionDenied(denied, { ...settings, apiKey: 'k' }, 'write in', 'write')?.message).toBe(
      'TEMPORAL_API_KEY: the Temporal server accepted the key, but it may not write in namespace relay (that needs the `relay:write` permission or more) (7 PERMISSION_DENIED: Request unauthorized.)',
    );
    expect(explainPermissionDenied(denied, { ...settings, tls: { clientCertPair: { crt: Buffer.from(''), key: Buffer.from('') } } }, 'write in', 'write')?.message).toMatch(
      /^TEMPORAL_TLS_CLIENT_CERT_PATH: the Temporal server accepted the certificate, but its holder may not write in namespace relay/,
    );
    expect(explainPermissionDenied(denied, settings, 'write in', 'write')?.message).toMatch(/^TEMPORAL_API_KEY: the Temporal server requires credentials to use namespace relay \(/);
  });
  it('leaves any other error to the caller', () => {
    expect(explainPermissionDenied(Object.assign(new Error('5 NOT_FOUND: workflow not found'), { code: 5 }), settings, 'write in', 'write')).toBeUndefined();
    expect(explainPermissionDenied(new Error('deadline exceeded'), settings, 'write in', 'write')).toBeUndefined();
  });
});
