import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type TestDatabase, TEST_SECRETS, createTestDatabase } from '../support/test-env';

const REPO = path.resolve(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const build = require('../../scripts/build-service.js') as { ensureBuilt(opts?: { log?: (line: string) => void }): Promise<void> };

/**
 * Issue 35: with NODE_ENV=production every process that builds links (start, api, worker) refuses to start without
 * PUBLIC_BASE_URL, in one line naming it (exit 78), as it does for the secrets. A worker used to start and put
 * `http://localhost:3000` into operational events' dashboard_url. `relay migrate` builds no link and runs without it.
 */
describe('PUBLIC_BASE_URL in production', () => {
  let db: TestDatabase;
  let cwd: string;

  beforeAll(async () => {
    // NODE_ENV=production runs dist/current as it is: build it from these sources first.
    await build.ensureBuilt({ log: () => undefined });
    db = await createTestDatabase();
    // No .env of the checkout's: the environment below is all the process reads.
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-production-'));
  }, 180_000);
  afterAll(async () => {
    await db?.drop();
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  const run = (command: string, env: Record<string, string> = {}) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(PUBLIC_BASE_URL|PORT|RELAY_WORKER_METRICS_PORT)$/.test(name)));
      const child = spawn(process.execPath, [path.join(REPO, 'bin', 'relay.js'), command], {
        cwd,
        env: {
          ...inherited,
          NODE_ENV: 'production',
          LOG_LEVEL: 'warn',
          DATABASE_URL: db.url,
          TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
          RELAY_DATA_DIR: path.join(cwd, 'data'),
          ...TEST_SECRETS,
          ...env,
        },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      // A process that started after all is stopped, so the test reports its refusal missing rather than hanging.
      const started = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.on('close', (code) => {
        clearTimeout(started);
        resolve({ code, stdout, stderr });
      });
    });

  it.each(['worker', 'api', 'start'])('relay %s refuses to start without it, in one line naming it', async (command) => {
    const out = await run(command);
    expect(out.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^configuration error: PUBLIC_BASE_URL: required in production \(https:\/\/relay\.example\.com: the address users and senders reach\)/),
    ]);
    expect(out.code).toBe(78);
  });

  it('relay migrate runs without it', async () => {
    const out = await run('migrate');
    expect(out.stderr).toBe('');
    expect(out.stdout).toMatch(/database is up to date/);
    expect(out.code).toBe(0);
  });
});
