import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, launcherEnv } from '../support/launcher-process';

/**
 * The first `npm start` on a laptop that cannot install the Temporal CLI (python3 without venv, as Debian and
 * Ubuntu ship it; no `temporal`, no TEMPORAL_CLI_PATH, no TEMPORAL_ADDRESS): one line saying what to install or
 * set, before anything starts: no PostgreSQL, no half-installed tools.
 */
describe('a first start on a machine without what it needs', () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-first-start-'));
  const dataDir = path.join(home, '.relay');
  const fakeBin = path.join(home, 'bin');

  beforeAll(() => {
    fs.mkdirSync(fakeBin);
    // python3 as Debian ships it without python3-venv: no ensurepip, so `-m venv` fails; no pip either.
    fs.writeFileSync(
      path.join(fakeBin, 'python3'),
      '#!/bin/sh\necho "The virtual environment was not created successfully because ensurepip is not available." >&2\nexit 1\n',
      { mode: 0o755 },
    );
  });
  afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

  it('says in one line what to install or set, and starts nothing', async () => {
    const system = ['/usr/local/bin', '/usr/bin', '/bin'].filter((dir) => !['temporal', 'go'].some((tool) => fs.existsSync(path.join(dir, tool))));
    const env = {
      ...(await launcherEnv(dataDir)),
      HOME: home,
      PATH: [fakeBin, path.dirname(process.execPath), ...system].join(path.delimiter),
      TEMPORAL_CLI_PATH: '',
      LOG_LEVEL: 'info',
    };
    const launched = launch(env);
    const timer = setTimeout(() => launched.child.kill('SIGKILL'), 60_000);
    const code = await launched.exited.finally(() => clearTimeout(timer));

    expect(code).toBe(1);
    const lines = launched.output().trim().split('\n');
    expect(lines).toEqual([expect.stringMatching(/^relay: relay start needs the Temporal CLI .* \(python3 has no venv module\): install python3-venv \(.*apt install python3-venv\), or set TEMPORAL_CLI_PATH to a temporal binary, or TEMPORAL_ADDRESS to a running Temporal server\.$/)]);
    // Nothing started, nothing half-installed.
    for (const started of ['postgres', 'temporal.db', 'tools', 'relay-start.json']) expect(fs.existsSync(path.join(dataDir, started))).toBe(false);
  }, 90_000);
});
