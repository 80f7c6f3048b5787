import fs from 'node:fs';
import path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { ConfigError } from './config-error';

/** What `.env` contributed: the file, the names it set, and the ones the real environment already had (and won). */
export interface EnvFile {
  path: string;
  applied: string[];
  overridden: string[];
}

/** A setting line: `NAME=value`, optionally after `export `; a name is a shell variable's name. */
const SETTING_LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;
const QUOTES = ['"', "'", '`'];

/**
 * The line on which a quoted value that opens at `lines[start][from - 1]` closes, as dotenv reads it: at its first
 * quote not after a backslash, which must end its line (but for a comment) when the value spans lines. Null when no
 * such quote closes it.
 */
function closingLine(lines: string[], start: number, from: number, quote: string): number | null {
  for (let n = start; n < lines.length; n++) {
    const line = lines[n];
    for (let c = n === start ? from : 0; c < line.length; c++) {
      if (line[c] === '\\' && line[c + 1] === quote) c++;
      else if (line[c] === quote) return n === start || /^\s*(?:#.*)?$/.test(line.slice(c + 1)) ? n : null;
    }
  }
  return null;
}

/**
 * Parses `.env` text: each line is `NAME=value`, a `#` comment or blank; values follow dotenv's grammar (quotes, a
 * quoted value over several lines such as a PEM, `\n` in double quotes, a trailing `# comment`). Any other line
 * throws a ConfigError naming the file and the line's number, never its text: a line that is not a setting may be a
 * secret whose `=` was forgotten (`RELAY_JWT_SECRET <secret>`), which dotenv alone would skip without a word.
 */
export function parseEnvFile(text: string, file: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n?|\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const refuse = (why: string) =>
      new ConfigError(`${file} line ${i + 1}: ${why}; a line is NAME=value, a # comment or blank (the line is not shown: it may hold a secret)`);
    const setting = SETTING_LINE.exec(line);
    if (!setting) throw refuse('not a setting');
    const [, name, raw] = setting;
    const end = QUOTES.includes(raw[0]) ? closingLine(lines, i, line.length - raw.length + 1, raw[0]) : i;
    if (end === null) throw refuse('a quoted value that is not closed, or not at the end of a line');
    const parsed = parseDotenv(lines.slice(i, end + 1).join('\n'));
    if (Object.keys(parsed).length !== 1 || !(name in parsed)) throw refuse('not a setting');
    values[name] = parsed[name];
    i = end;
  }
  return values;
}

/**
 * Reads `<dir>/.env` (parseEnvFile) into `env` for every name the environment does not already have: the real
 * environment wins. Returns undefined when there is no such file; throws a ConfigError (exit 78) on a line that is
 * not a setting, before any of the file is applied.
 */
export function applyEnvFile(env: NodeJS.ProcessEnv, dir: string = process.cwd()): EnvFile | undefined {
  const file = path.resolve(dir, '.env');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const applied: string[] = [];
  const overridden: string[] = [];
  for (const [name, value] of Object.entries(parseEnvFile(text, file))) {
    if (env[name] !== undefined) {
      overridden.push(name);
    } else {
      env[name] = value;
      applied.push(name);
    }
  }
  return { path: file, applied, overridden };
}
