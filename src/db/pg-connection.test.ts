import { pgClientConfig } from './pg-connection';

describe('pgClientConfig', () => {
  const base = 'postgres://relay:relay@db.example:5432/relay';

  it('is plain TCP by default and for sslmode=disable', () => {
    expect(pgClientConfig(base)).toEqual({ connectionString: base, ssl: false });
    expect(pgClientConfig(`${base}?sslmode=disable`).ssl).toBe(false);
  });

  it('follows libpq: require checks nothing without a root certificate, verify-ca the chain, verify-full the name too', () => {
    const require = pgClientConfig(`${base}?sslmode=require`);
    expect(require.connectionString).toBe(base);
    expect(require.ssl).toMatchObject({ rejectUnauthorized: false });
    const verifyCa = pgClientConfig(`${base}?sslmode=verify-ca`).ssl as { rejectUnauthorized: boolean; checkServerIdentity?: unknown };
    expect(verifyCa.rejectUnauthorized).toBe(true);
    expect(verifyCa.checkServerIdentity).toEqual(expect.any(Function));
    const verifyFull = pgClientConfig(`${base}?sslmode=verify-full&application_name=relay`);
    expect(verifyFull.connectionString).toBe(`${base}?application_name=relay`);
    expect(verifyFull.ssl).toEqual({ rejectUnauthorized: true });
  });
});
