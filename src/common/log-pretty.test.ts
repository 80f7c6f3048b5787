import { prettyFactory } from 'pino-pretty';
import { prettyLogOptions } from './logger';

describe('terminal log lines (pino-pretty)', () => {
  const time = new Date(2026, 10, 24, 9, 5, 7, 42).getTime();
  const line = (entry: object, colour = false) => prettyFactory(prettyLogOptions(colour))(JSON.stringify(entry));

  it('shows time, level, message and the other fields on one line, without pino’s own fields', () => {
    const out = line({ level: 30, time, pid: 1, hostname: 'vm', name: 'relay', msg: 'starting Temporal dev server', cliPath: '/usr/bin/temporal', port: 7233 });
    expect(out).toBe('09:05:07.042 INFO: starting Temporal dev server {"cliPath":"/usr/bin/temporal","port":7233}\n');
  });

  it('gives an error its type, message and stack', () => {
    const err = { type: 'Error', message: 'boom', stack: 'Error: boom\n    at f (x.ts:1:1)' };
    const out = line({ level: 50, time, msg: 'shutdown failed', err });
    expect(out).toMatch(/^09:05:07\.042 ERROR: shutdown failed/);
    expect(out).toContain('"message": "boom"');
    expect(out).toContain('at f (x.ts:1:1)');
  });

  it('colours the level on request only', () => {
    expect(line({ level: 50, time, msg: 'x' }, true)).toContain('\u001b[31mERROR\u001b[39m');
    expect(line({ level: 50, time, msg: 'x' })).not.toContain('\u001b[');
  });
});
