import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');
const relay = (args: string[], cwd = REPO, bin = path.join(REPO, 'bin', 'relay.js')) =>
  execFileSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NODE_ENV: 'development' } });

describe('the relay command', () => {
  it('prints its version and its commands', () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
    expect(relay(['--version']).trim()).toBe(version);
    expect(relay(['-V']).trim()).toBe(version);
    const began = performance.now();
    const help = relay(['--help']);
    console.log(`relay --help: ${Math.round(performance.now() - began)} ms (${fs.existsSync(path.join(REPO, 'dist', 'src', 'launcher', 'relay.js')) ? 'dist/ present' : 'from the sources'})`);
    expect(help).toMatch(/-V, --version\s+the version of this relay/);
    for (const command of ['start', 'login', 'listen', 'whoami']) expect(help).toContain(`\n  ${command}`);
  });

  describe('runs the compiled tree only while it is up to date', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-bin-'));
    const bin = path.join(root, 'bin', 'relay.js');
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    };
    const age = (file: string, secondsAgo: number) => {
      const when = new Date(Date.now() - secondsAgo * 1000);
      fs.utimesSync(path.join(root, file), when, when);
    };

    beforeAll(() => {
      fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'));
      write('bin/relay.js', fs.readFileSync(path.join(REPO, 'bin', 'relay.js'), 'utf8'));
      write('tsconfig.json', fs.readFileSync(path.join(REPO, 'tsconfig.json'), 'utf8'));
      write('tsconfig.runtime.json', fs.readFileSync(path.join(REPO, 'tsconfig.runtime.json'), 'utf8'));
      write('src/launcher/relay.ts', "const from: string = 'sources';\nprocess.stdout.write(from);\n");
      write('src/launcher/other.ts', 'export {};\n');
      write('dist/src/launcher/relay.js', "process.stdout.write('dist');\n");
      for (const file of ['src/launcher/relay.ts', 'src/launcher/other.ts', 'src/launcher', 'src']) age(file, 60);
    });
    afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

    it('uses dist/ when no source changed after it was built', () => {
      expect(relay([], root, bin)).toBe('dist');
    });

    it('runs the sources when one was edited, added or deleted since', () => {
      age('src/launcher/other.ts', 0);
      expect(relay([], root, bin)).toBe('sources');
      age('src/launcher/other.ts', 60);
      expect(relay([], root, bin)).toBe('dist');
      fs.rmSync(path.join(root, 'src/launcher/other.ts'));
      expect(relay([], root, bin)).toBe('sources');
    });

    it('runs the sources in a fresh clone, where nothing is built', () => {
      fs.rmSync(path.join(root, 'dist'), { recursive: true });
      expect(relay([], root, bin)).toBe('sources');
    });
  });
});
