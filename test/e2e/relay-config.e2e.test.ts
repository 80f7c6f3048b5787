import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type TestDatabase, createTestDatabase } from '../support/test-env';

const REPO = path.resolve(__dirname, '..', '..');

/** `node bin/relay.js <args>` in `cwd`, with none of the test run's own service settings inherited. */
function relay(args: string[], cwd: string, env: Record<string, string> = {}) {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(DATABASE_|TEMPORAL_|RELAY_|PORT$|LOG_)/.test(name)));
  const run = spawnSync(process.execPath, [path.join(REPO, 'bin', 'relay.js'), ...args], { cwd, encoding: 'utf8', env: { ...inherited, NODE_ENV: 'development', ...env }, timeout: 120_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('settings from .env and `relay config`', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-config-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('prints every setting in use with its source, secrets masked, and names unknown RELAY_* settings', () => {
    fs.writeFileSync(path.join(dir, '.env'), 'PORT=4100\nLOG_LEVEL=debug\nRELAY_PROT=1\n');
    const secret = 'a-jwt-secret-that-is-long-enough-0123456789';
    const { code, stdout } = relay(['config', '--json'], dir, { PORT: '4200', RELAY_JWT_SECRET: secret, DATABASE_URL: 'postgres://relay:hunter2@db.example:5432/relay' });
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { env_file: string; settings: Array<{ name: string; value?: string; source: string }>; unknown: unknown[] };
    const row = (name: string) => report.settings.find((r) => r.name === name);
    expect(report.env_file).toBe(path.join(fs.realpathSync(dir), '.env'));
    expect(row('PORT')).toMatchObject({ value: '4200', source: 'environment' });
    expect(row('LOG_LEVEL')).toMatchObject({ value: 'debug', source: '.env' });
    expect(row('HOST')).toMatchObject({ value: '127.0.0.1', source: 'default' });
    expect(row('PUBLIC_BASE_URL')).toMatchObject({ value: 'http://localhost:4200', source: 'derived' });
    expect(row('TEMPORAL_ADDRESS')).toMatchObject({ value: '127.0.0.1:7233', source: 'derived' });
    expect(row('DATABASE_URL')).toMatchObject({ value: 'postgres://relay:***@db.example:5432/relay', source: 'environment' });
    expect(row('RELAY_JWT_SECRET')).toMatchObject({ value: '***', source: 'environment' });
    expect(stdout).not.toContain(secret);
    expect(stdout).not.toContain('hunter2');
    expect(report.unknown).toEqual([{ name: 'RELAY_PROT', suggestion: 'RELAY_PG_PORT' }]);

    const text = relay(['config'], dir).stdout;
    expect(text).toMatch(/^PORT=4100 +\.env$/m);
    expect(text).toMatch(/^DATABASE_URL=postgres:\/\/relay:\*\*\*@127\.0\.0\.1:54329\/relay +derived: relay start runs an embedded PostgreSQL/m);
    expect(text).toContain('unknown setting RELAY_PROT: nothing reads it; did you mean RELAY_PG_PORT?');
  });

  it('names the .env file when a setting in it is invalid', () => {
    fs.writeFileSync(path.join(dir, '.env'), 'PORT=eighty\n');
    const { code, stderr } = relay(['config'], dir);
    expect(code).toBe(78);
    expect(stderr).toContain(`configuration error: PORT: `);
    expect(stderr).toContain(`(set in ${path.join(fs.realpathSync(dir), '.env')})`);
  });

  it('refuses a .env line that is not NAME=value by its number, never showing it, in every command that reads .env', () => {
    // A forgotten `=`: the secret and the next line must neither be shown, logged nor silently dropped.
    const secret = 'a-jwt-secret-whose-equals-sign-was-forgotten-0123456789';
    fs.writeFileSync(path.join(dir, '.env'), `# settings\nRELAY_JWT_SECRET ${secret}\nPORT=4100\n`);
    const file = path.join(fs.realpathSync(dir), '.env');
    for (const args of [['config'], ['config', '--json'], ['start'], ['api'], ['worker'], ['migrate']]) {
      const { code, stdout, stderr } = relay(args, dir, { LOG_FORMAT: 'json' });
      expect({ args, code, stdout }).toEqual({ args, code: 78, stdout: '' });
      expect(stderr).toBe(`configuration error: ${file} line 2: not a setting; a line is NAME=value, a # comment or blank (the line is not shown: it may hold a secret)\n`);
    }
  });

  it('names an unknown setting from .env without its value', () => {
    const secret = 'a-jwt-secret-under-a-misspelt-name-0123456789';
    fs.writeFileSync(path.join(dir, '.env'), `RELAY_JWT_SECRTE=${secret}\n`);
    const text = relay(['config'], dir);
    const json = relay(['config', '--json'], dir);
    expect([text.code, json.code]).toEqual([0, 0]);
    expect(text.stdout).toContain('unknown setting RELAY_JWT_SECRTE: nothing reads it; did you mean RELAY_JWT_SECRET?');
    expect(JSON.parse(json.stdout).unknown).toEqual([{ name: 'RELAY_JWT_SECRTE', suggestion: 'RELAY_JWT_SECRET' }]);
    for (const out of [text.stdout, text.stderr, json.stdout, json.stderr]) expect(out).not.toContain(secret);
  });

  describe('a service command', () => {
    let db: TestDatabase;
    beforeAll(async () => (db = await createTestDatabase()));
    afterAll(() => db.drop());

    it('reads .env from its working directory and warns about an unknown RELAY_* setting by name', () => {
      fs.writeFileSync(path.join(dir, '.env'), `DATABASE_URL=${db.url}\nRELAY_DELIVERY_TIMEOUT=5000\n`);
      const { code, stdout, stderr } = relay(['migrate'], dir);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout).toContain('database is up to date');
      expect(stdout).toMatch(/unknown setting RELAY_DELIVERY_TIMEOUT \(from [^)]*\.env\): nothing reads it; did you mean RELAY_DELIVERY_TIMEOUT_MS\?/);
    });

    it("logs an unknown setting's name, never its value", () => {
      const secret = 'a-jwt-secret-under-a-misspelt-name-0123456789';
      fs.writeFileSync(path.join(dir, '.env'), `DATABASE_URL=${db.url}\nRELAY_JWT_SECRTE=${secret}\n`);
      const { code, stdout, stderr } = relay(['migrate'], dir);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout).toMatch(/unknown setting RELAY_JWT_SECRTE \(from [^)]*\.env\): nothing reads it; did you mean RELAY_JWT_SECRET\?/);
      expect(stdout).not.toContain(secret);
    });
  });
});
