import { formatLogLine } from './log-format';

describe('formatLogLine', () => {
  const time = new Date(2026, 10, 24, 9, 5, 7, 42).getTime();

  it('shows time, level, message and the other fields as key=value, without pino’s own fields', () => {
    const line = JSON.stringify({ level: 30, time, pid: 1, hostname: 'vm', name: 'relay', msg: 'starting Temporal dev server', cliPath: '/usr/bin/temporal', port: 7233, note: 'two words' });
    expect(formatLogLine(line, { colour: false })).toBe('09:05:07.042 INFO  starting Temporal dev server cliPath=/usr/bin/temporal port=7233 note="two words"\n');
  });

  it('gives an error its type and message, and its stack only at level error', () => {
    const err = { type: 'Error', message: 'boom', stack: 'Error: boom\n    at f (x.ts:1:1)' };
    expect(formatLogLine(JSON.stringify({ level: 40, time, msg: 'close failed', err }), { colour: false })).toBe('09:05:07.042 WARN  close failed err="Error: boom"\n');
    expect(formatLogLine(JSON.stringify({ level: 50, time, msg: 'shutdown failed', err }), { colour: false })).toBe(
      '09:05:07.042 ERROR shutdown failed err="Error: boom"\n    at f (x.ts:1:1)\n',
    );
  });

  it('colours the level on request and passes a line that is not JSON through', () => {
    expect(formatLogLine(JSON.stringify({ level: 50, time, msg: 'x' }), { colour: true })).toContain('\u001b[31mERROR\u001b[0m');
    expect(formatLogLine('plain text', { colour: false })).toBe('plain text\n');
  });
});
