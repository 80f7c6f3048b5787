import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/free-port';
import { createTestDatabase, TEST_SECRETS, type TestDatabase, uniqueTaskQueue } from '../support/test-env';

const REPO = path.resolve(__dirname, '..', '..');

/**
 * Issue 17.3: a stop signal is handled from the process's first moment. `/readyz` answers 200 as
 * soon as the API listens, while `relay start` is still starting its worker; a Ctrl+C then used to
 * reach only the Temporal SDK's own handler, which stopped the worker and left the process running.
 */
describe('a stop signal during start-up', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
  });

  afterAll(async () => {
    await db?.drop();
  });

  async function run(command: 'start' | 'worker', signalWhen: (baseUrl: string, output: () => string) => Promise<void>) {
    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-stop-'));
    const child = spawn(process.execPath, [path.join(REPO, 'bin', 'relay.js'), command], {
      cwd: REPO,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
        PORT: String(port),
        DATABASE_URL: db.url,
        TEMPORAL_TASK_QUEUE: uniqueTaskQueue('stop'),
        RELAY_DATA_DIR: dataDir,
        ...TEST_SECRETS,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await signalWhen(`http://127.0.0.1:${port}`, () => output);
      child.kill('SIGINT');
      const code = await Promise.race([exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), 20_000))]);
      return { code, output };
    } finally {
      child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }

  it('relay start: Ctrl+C the moment /readyz first answers 200 (worker still starting) stops it with its final line', async () => {
    const { code, output } = await run('start', async (baseUrl) => {
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const res = await fetch(`${baseUrl}/readyz`).catch(() => undefined);
        if (res?.status === 200) return;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error('never ready');
    });
    expect({ code, lastLine: output.trim().split('\n').at(-1) }).toEqual({
      code: 0,
      lastLine: expect.stringMatching(/^relay stopped \(api, worker\) in \d+\.\d s$/),
    });
  }, 90_000);

  it('relay worker: Ctrl+C while it connects stops it with its final line', async () => {
    const { code, output } = await run('worker', async (_baseUrl, soFar) => {
      const deadline = Date.now() + 30_000;
      while (!soFar().includes('"msg":"worker starting"') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    });
    expect({ code, lastLine: output.trim().split('\n').at(-1) }).toEqual({
      code: 0,
      lastLine: expect.stringMatching(/^relay stopped \(worker\) in \d+\.\d s$/),
    });
  }, 60_000);
});
