import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

/** What `.env` contributed: the file, the names it set, and the ones the real environment already had (and won). */
export interface EnvFile {
  path: string;
  applied: string[];
  overridden: string[];
}

/**
 * Reads `<dir>/.env` (KEY=value lines, `#` comments, quoted values; Node's own
 * parser) into `env` for every name the environment does not already have: the
 * real environment wins. Returns undefined when there is no such file.
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
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (env[name] !== undefined) {
      overridden.push(name);
    } else {
      env[name] = value;
      applied.push(name);
    }
  }
  return { path: file, applied, overridden };
}
