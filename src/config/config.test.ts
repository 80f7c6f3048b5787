import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  it('applies documented defaults', () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(3000);
    expect(c.RELAY_MAX_BODY_BYTES).toBe(1024 * 1024);
    expect(c.RELAY_DELIVERY_TIMEOUT_MS).toBe(30_000);
    expect(c.publicBaseUrl).toBe('http://localhost:3000');
  });

  it('names the variable that is invalid', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/^PORT:/);
    expect(() => loadConfig({ RELAY_ALLOW_PRIVATE_NETWORKS: 'maybe' })).toThrow(/^RELAY_ALLOW_PRIVATE_NETWORKS:/);
    expect(() => loadConfig({ RELAY_ENCRYPTION_KEYS: 'k1:short' })).toThrow(ConfigError);
  });

  it('requires secrets and external services in production, saying how to make each', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/^RELAY_ENCRYPTION_KEYS: required in production; make one with RELAY_ENCRYPTION_KEYS=k1:\$\(openssl rand -base64 32\)/);
    const key = `k1:${Buffer.alloc(32, 1).toString('base64')}`;
    expect(() => loadConfig({ NODE_ENV: 'production', RELAY_ENCRYPTION_KEYS: key })).toThrow(/^RELAY_JWT_SECRET: .*make one with RELAY_JWT_SECRET=\$\(openssl rand -base64 48\)$/);
    const secrets = { NODE_ENV: 'production', RELAY_ENCRYPTION_KEYS: key, RELAY_JWT_SECRET: 'x'.repeat(32) };
    expect(() => loadConfig(secrets)).toThrow(/^DATABASE_URL: required in production \(postgres:\/\/.*\); relay start runs its own PostgreSQL only outside production$/);
    expect(() => loadConfig({ ...secrets, DATABASE_URL: 'postgres://relay@db/relay' })).toThrow(/^TEMPORAL_ADDRESS: required in production \(host:7233 /);
    const services = { ...secrets, DATABASE_URL: 'postgres://relay@db/relay', TEMPORAL_ADDRESS: 'temporal:7233' };
    expect(() => loadConfig(services)).toThrow(/^PUBLIC_BASE_URL: required in production \(https:\/\/relay\.example\.com: /);
    expect(loadConfig({ ...services, PUBLIC_BASE_URL: 'https://relay.example.com/' }).publicBaseUrl).toBe('https://relay.example.com');
  });

  it('lets a command that builds no link run in production without PUBLIC_BASE_URL', () => {
    const env = {
      NODE_ENV: 'production',
      RELAY_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
      RELAY_JWT_SECRET: 'x'.repeat(32),
      DATABASE_URL: 'postgres://relay@db/relay',
      TEMPORAL_ADDRESS: 'temporal:7233',
    };
    expect(() => loadConfig(env, { noLinks: true })).not.toThrow();
  });
});
