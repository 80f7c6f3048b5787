import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applyEnvFile } from './env-file';

describe('applyEnvFile', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-env-file-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads .env into the environment, the real environment winning', () => {
    fs.writeFileSync(path.join(dir, '.env'), '# a comment\nPORT=4100\nLOG_LEVEL="debug"\nPUBLIC_BASE_URL=http://relay.test\n');
    const env: NodeJS.ProcessEnv = { PORT: '4200' };
    const file = applyEnvFile(env, dir);
    expect(env).toEqual({ PORT: '4200', LOG_LEVEL: 'debug', PUBLIC_BASE_URL: 'http://relay.test' });
    expect(file).toEqual({ path: path.join(dir, '.env'), applied: ['LOG_LEVEL', 'PUBLIC_BASE_URL'], overridden: ['PORT'] });
  });

  it('does nothing without a .env file', () => {
    const env: NodeJS.ProcessEnv = { PORT: '4200' };
    expect(applyEnvFile(env, dir)).toBeUndefined();
    expect(env).toEqual({ PORT: '4200' });
  });
});
