import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');

/** `npm start`'s prestart step as package.json has it, run as npm runs it (a shell in the checkout), into `out`. */
function prestart(out: string): Promise<{ code: number | null; stderr: string }> {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', scripts.prestart], { cwd: REPO, env: { ...process.env, NODE_ENV: 'development', RELAY_DASHBOARD_DIR: out }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('npm start after a pull that changed the dashboard', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-dashboard-rebuild-'));
  afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

  it('rebuilds a dashboard older than its sources, once, and leaves a current one alone', async () => {
    // A build from before the sources' last change (a checkout's files are as new as the clone or the pull).
    const index = path.join(out, 'index.html');
    fs.writeFileSync(index, '<!doctype html><title>stale build</title>');
    fs.utimesSync(index, new Date('2000-01-01T00:00:00Z'), new Date('2000-01-01T00:00:00Z'));

    const first = await prestart(out);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/relay: building the dashboard: dashboard\/src changed since it was built/);
    const rebuilt = fs.readFileSync(index, 'utf8');
    expect(rebuilt).not.toContain('stale build');
    expect(rebuilt).toMatch(/<script type="module"[^>]* src="\/assets\/index-[\w-]+\.js"/);
    const builtAt = fs.statSync(index).mtimeMs;

    const second = await prestart(out);
    expect(second.code).toBe(0);
    expect(second.stderr).not.toContain('building the dashboard');
    expect(fs.statSync(index).mtimeMs).toBe(builtAt);
  }, 300_000);
});
