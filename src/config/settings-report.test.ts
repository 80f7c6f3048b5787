import fs from 'node:fs';
import path from 'node:path';
import { SETTING_NAMES, describeSettings, envExample, unknownSettings } from './settings-report';

describe('.env.example', () => {
  it('is what `npm run config:example` generates from the config schema (run it after changing a setting)', () => {
    const committed = fs.readFileSync(path.join(__dirname, '..', '..', '.env.example'), 'utf8');
    expect(committed).toBe(envExample());
  });

  it('lists every setting with its default and a meaning', () => {
    const example = envExample();
    for (const name of SETTING_NAMES) expect(example).toMatch(new RegExp(`\\n# [^\\n]+\\n# ${name}=`));
    expect(example).toContain('\n# PORT=3000\n');
    expect(example).toContain('\n# RELAY_ALLOW_PRIVATE_NETWORKS=0\n');
    expect(example).toContain('(default: relay start runs an embedded PostgreSQL under RELAY_DATA_DIR)\n# DATABASE_URL=\n');
  });
});

describe('unknownSettings', () => {
  it('names RELAY_* variables nothing reads, with the closest known name', () => {
    const env = { RELAY_DELIVERY_TIMEOUT: '5', RELAY_PG_PROT: '1', RELAY_API_KEY: 'svc_x', RELAY_TEST_TEMPORAL: 'dev', RELAY_PG_PORT: '1', OTHER: 'x' };
    expect(unknownSettings(env)).toEqual([
      { name: 'RELAY_DELIVERY_TIMEOUT', suggestion: 'RELAY_DELIVERY_TIMEOUT_MS' },
      { name: 'RELAY_PG_PROT', suggestion: 'RELAY_PG_PORT' },
    ]);
  });
});

describe('describeSettings', () => {
  it('says where each value came from and masks secrets', () => {
    const env = {
      PORT: '4200',
      LOG_LEVEL: 'debug',
      DATABASE_URL: 'postgres://relay:hunter2@db.example:5432/relay',
      RELAY_JWT_SECRET: 'x'.repeat(40),
      OAUTH_CODEHOST_A_CLIENT_ID: 'client',
      OAUTH_CODEHOST_A_CLIENT_SECRET: 'very-secret',
    };
    const rows = describeSettings(env, { path: '/x/.env', applied: ['LOG_LEVEL'], overridden: [] }, { TEMPORAL_ADDRESS: { value: '127.0.0.1:7233', note: 'relay start runs a Temporal dev server' } });
    const row = (name: string) => rows.find((r) => r.name === name);
    expect(row('PORT')).toEqual({ name: 'PORT', value: '4200', source: 'environment' });
    expect(row('LOG_LEVEL')).toEqual({ name: 'LOG_LEVEL', value: 'debug', source: '.env' });
    expect(row('HOST')).toEqual({ name: 'HOST', value: '127.0.0.1', source: 'default' });
    expect(row('TEMPORAL_ADDRESS')).toMatchObject({ value: '127.0.0.1:7233', source: 'derived' });
    expect(row('CHAT_A_API_BASE_URL')).toMatchObject({ value: undefined, source: 'unset' });
    expect(row('DATABASE_URL')?.value).toBe('postgres://relay:***@db.example:5432/relay');
    expect(row('RELAY_JWT_SECRET')?.value).toBe('***');
    expect(row('OAUTH_CODEHOST_A_CLIENT_ID')).toMatchObject({ value: 'client', source: 'environment' });
    expect(row('OAUTH_CODEHOST_A_CLIENT_SECRET')?.value).toBe('***');
    expect(JSON.stringify(rows)).not.toMatch(/hunter2|very-secret|xxxxxxxx/);
  });
});
