import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError, EXIT } from './cli-errors';

/** What `relay login` keeps: the API it logged in to and the session tokens, nothing else. */
export interface StoredConfig {
  api_url: string;
  access_token?: string;
  refresh_token?: string;
  /** ISO 8601: when the access token expires (refreshed a little before). */
  access_token_expires_at?: string;
}

export const DEFAULT_API_URL = 'http://localhost:3000';

/** `$XDG_CONFIG_HOME/relay/config.json`, else `~/.config/relay/config.json`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(os.homedir(), '.config');
  return path.join(base, 'relay', 'config.json');
}

export class ConfigStore {
  constructor(readonly file: string = configPath()) {}

  read(): StoredConfig | undefined {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    try {
      const parsed = JSON.parse(text) as Partial<StoredConfig>;
      return typeof parsed.api_url === 'string' ? (parsed as StoredConfig) : undefined;
    } catch {
      // A damaged file is the same as no login.
      return undefined;
    }
  }

  /**
   * Writes the tokens readable by the owner only: the directory 0700, the
   * file created 0600 under a temporary name and renamed over the old one, so
   * that no reader ever sees a half-written file or wider permissions.
   */
  write(config: StoredConfig): void {
    const dir = path.dirname(this.file);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
    const temp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
    fs.chmodSync(temp, 0o600);
    fs.renameSync(temp, this.file);
  }

  /** Drops the tokens and keeps `api_url`, so the next `relay login` goes to the same API. */
  clearSession(): void {
    const current = this.read();
    if (current) this.write({ api_url: current.api_url });
  }
}

/** The API a command talks to: `--api-url`, else RELAY_API_URL, else the one logged in to, else the local default. */
export function resolveApiUrl(flag: string | undefined, stored: StoredConfig | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const raw = flag ?? env.RELAY_API_URL ?? stored?.api_url ?? DEFAULT_API_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    url = new URL('invalid:');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`invalid API URL "${raw}": give an http(s) URL such as ${DEFAULT_API_URL}`, EXIT.usage);
  }
  return url.toString().replace(/\/+$/, '');
}
