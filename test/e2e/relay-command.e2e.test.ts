import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');
const relay = (args: string[], cwd = REPO, bin = path.join(REPO, 'bin', 'relay.js'), env: Record<string, string> = {}) =>
  execFileSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NODE_ENV: 'development', ...env } });

describe('the relay command', () => {
  it('prints its version and its commands', () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
    // The version and the checkout's commit (issue 35: which commit a relay is).
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO, encoding: 'utf8' }).trim().slice(0, 12);
    expect(relay(['--version']).trim()).toBe(`${version} (commit ${commit})`);
    expect(relay(['-V']).trim()).toBe(`${version} (commit ${commit})`);
    const help = relay(['--help']);
    expect(help).toMatch(/-V, --version\s+the version of this relay/);
    for (const command of ['start', 'api', 'worker', 'migrate', 'login', 'listen', 'whoami', 'trigger']) expect(help).toContain(`\n  ${command}`);
  });

  /**
   * bin/relay.js in a small checkout of its own (the real bin/ and build script, the repository's node_modules): it runs
   * the compiled dist/current, builds it on the first start after a source changed, once however many processes start
   * at that moment, and never runs TypeScript at start.
   */
  describe('compiled starts', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-bin-'));
    const bin = path.join(root, 'bin', 'relay.js');
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    };
    const builds = () => fs.readdirSync(path.join(root, 'dist', 'builds')).sort();
    /** Runs bin/relay.js as a user would: its stdout and stderr. */
    const run = (env: Record<string, string> = {}) =>
      new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve) => {
        const child = spawn(process.execPath, [bin], { cwd: root, env: { ...process.env, NODE_ENV: 'development', ...env } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (code) => resolve({ stdout, stderr, code }));
      });

    beforeAll(() => {
      fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'));
      for (const file of ['bin/relay.js', 'scripts/build-service.js', 'tsconfig.json']) write(file, fs.readFileSync(path.join(REPO, file), 'utf8'));
      write('src/launcher/relay.ts', "import { word } from '../word';\nconst typed: string = word;\nprocess.stdout.write(typed);\n");
      write('src/word.ts', "export const word = 'first';\n");
      write('workflows/index.ts', 'export async function noop(): Promise<void> {}\n');
    });
    afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

    it('builds once on the first start, then runs the build as it is', async () => {
      const first = await run();
      expect(first).toMatchObject({ stdout: 'first', code: 0 });
      expect(first.stderr).toMatch(/building the service into dist\/ \(once\)\n.*built 3 files into dist\//);
      expect(fs.readFileSync(path.join(root, 'dist', 'current', 'workflow-bundle.js'), 'utf8')).toContain('noop');
      expect(fs.existsSync(path.join(root, 'dist', 'current', 'src', 'launcher', 'relay.js'))).toBe(true);

      const again = await run();
      expect(again).toEqual({ stdout: 'first', stderr: '', code: 0 });
      expect(builds()).toHaveLength(1);
    });

    it('builds again, once, when a source is edited, added or deleted, however many processes start at that moment', async () => {
      const before = builds();
      write('src/word.ts', "export const word = 'second';\n");
      const runs = await Promise.all([run(), run(), run(), run()]);
      expect(runs.map((r) => [r.stdout, r.code])).toEqual(Array(4).fill(['second', 0]));
      expect(runs.filter((r) => /built \d+ files/.test(r.stderr))).toHaveLength(1);
      const after = builds();
      expect(after.filter((b) => !before.includes(b))).toHaveLength(1);
      // The workflow code did not change: its bundle is the previous build's.
      const info = (name: string) => JSON.parse(fs.readFileSync(path.join(root, 'dist', 'builds', name, 'BUILD.json'), 'utf8'));
      expect(info(after[after.length - 1]).workflows).toBe(info(before[0]).workflows);

      write('src/extra.ts', 'export {};\n');
      expect((await run()).stderr).toMatch(/built 4 files/);
      fs.rmSync(path.join(root, 'src', 'extra.ts'));
      expect((await run()).stderr).toMatch(/built 3 files/);
    });

    it('with NODE_ENV=production runs the build it has, without building', async () => {
      write('src/word.ts', "export const word = 'third';\n");
      expect(await run({ NODE_ENV: 'production' })).toEqual({ stdout: 'second', stderr: '', code: 0 });
      expect((await run()).stdout).toBe('third');
    });
  });
});
