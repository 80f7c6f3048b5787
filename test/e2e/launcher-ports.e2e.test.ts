import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../support/free-port';

const REPO = path.resolve(__dirname, '..', '..');
const SETTINGS = ['PORT', 'RELAY_PG_PORT', 'RELAY_TEMPORAL_PORT', 'RELAY_TEMPORAL_UI_PORT'] as const;

/** `relay start` with the given environment; resolves with its exit code and output once it exits. */
function runStart(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const { DATABASE_URL: _db, TEMPORAL_ADDRESS: _t, ...inherited } = process.env;
  const child = spawn(process.execPath, [path.join(REPO, 'bin', 'relay.js'), 'start'], {
    cwd: REPO,
    env: { ...inherited, NODE_ENV: 'development', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  // Bounded: a launcher that did not notice the taken port would go on starting services.
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

describe('relay start when a port is taken', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-ports-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it.each(SETTINGS)('names the port held on %s, its setting and a possible other relay, starts nothing, exits 1', async (setting) => {
    const env: Record<string, string> = { RELAY_DATA_DIR: dataDir };
    for (const name of SETTINGS) env[name] = String(await freePort());
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(Number(env[setting]), '127.0.0.1', resolve));
    try {
      const { code, output } = await runStart(env);
      expect(code).toBe(1);
      expect(output).toContain(`port ${env[setting]}`);
      expect(output).toContain(setting);
      expect(output).toMatch(/another relay may be running/);
      expect(output).not.toMatch(/undefined/);
      // Nothing was started: no PostgreSQL data directory was created.
      expect(fs.existsSync(path.join(dataDir, 'postgres'))).toBe(false);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
