/**
 * Log lines for a person at a terminal: `12:04:31.207 INFO  starting Temporal dev server cliPath=/usr/bin/temporal`.
 * pino writes JSON (one object per line) everywhere else; this formats those same objects.
 */
const LEVELS: Record<number, { label: string; colour: string }> = {
  10: { label: 'TRACE', colour: '90' },
  20: { label: 'DEBUG', colour: '90' },
  30: { label: 'INFO ', colour: '32' },
  40: { label: 'WARN ', colour: '33' },
  50: { label: 'ERROR', colour: '31' },
  60: { label: 'FATAL', colour: '35' },
};

/** pino's own fields: shown as the line's time, level and message, or not at all. */
const OWN_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'v']);

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  return JSON.stringify(v) ?? String(v);
}

function clock(time: unknown): string {
  const date = new Date(typeof time === 'number' ? time : Date.now());
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':') + '.' + String(date.getMilliseconds()).padStart(3, '0');
}

/**
 * One JSON log line as text: time, level, message, then `key=value` for the other fields.
 * An error shows its type and message; its stack only at level error and above.
 */
export function formatLogLine(line: string, opts: { colour: boolean }): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = LEVELS[entry.level as number] ?? { label: String(entry.level).padEnd(5), colour: '0' };
  const paint = (code: string, text: string) => (opts.colour ? `\u001b[${code}m${text}\u001b[0m` : text);
  const fields: string[] = [];
  let stack = '';
  for (const [key, v] of Object.entries(entry)) {
    if (OWN_FIELDS.has(key)) continue;
    if (key === 'err' && v && typeof v === 'object') {
      const err = v as { type?: string; message?: string; stack?: string };
      fields.push(`err=${value(`${err.type ?? 'Error'}: ${err.message ?? ''}`)}`);
      if ((entry.level as number) >= 50 && err.stack) stack = '\n' + err.stack.split('\n').slice(1).join('\n');
      continue;
    }
    fields.push(`${paint('2', `${key}=`)}${value(v)}`);
  }
  const message = typeof entry.msg === 'string' ? entry.msg : '';
  return `${paint('90', clock(entry.time))} ${paint(level.colour, level.label)} ${message}${fields.length ? ' ' + fields.join(' ') : ''}${stack}\n`;
}
