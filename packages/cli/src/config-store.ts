import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError, EXIT } from './cli-errors';

/** What `relay login` keeps per profile: the API it logged in to and the session tokens (or a project API key), nothing else. */
export interface StoredConfig {
  api_url: string;
  access_token?: string;
  refresh_token?: string;
  /** ISO 8601: when the access token expires (refreshed a little before). */
  access_token_expires_at?: string;
  /** `relay login --api-key svc_…`: a project API key instead of a user session (no refresh). */
  api_key?: string;
}

/** The file: the default profile's fields at the top level, other profiles under `profiles`. */
type StoredFile = Partial<StoredConfig> & { profiles?: Record<string, StoredConfig> };

export const DEFAULT_PROFILE = 'default';

/** `--profile`, else RELAY_PROFILE, else "default"; a name is letters, digits, `.`, `_`, `-`. */
export function profileName(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const name = flag ?? env.RELAY_PROFILE ?? DEFAULT_PROFILE;
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(name)) throw new CliError(`invalid profile "${name}": use letters, digits, ".", "_" or "-" (at most 64)`, EXIT.usage);
  return name;
}

export const DEFAULT_API_URL = 'http://localhost:3000';

/** `$XDG_CONFIG_HOME/relay/config.json`, else `~/.config/relay/config.json`. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(os.homedir(), '.config');
  return path.join(base, 'relay', 'config.json');
}

export class ConfigStore {
  constructor(
    readonly file: string = configPath(),
    /** `--profile`: several accounts or servers side by side in one file. */
    readonly profile: string = DEFAULT_PROFILE,
  ) {}

  private readFile(): StoredFile {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw err;
    }
    try {
      const parsed = JSON.parse(text) as StoredFile;
      return typeof parsed === 'object' && parsed !== null ? parsed : {};
    } catch {
      // A damaged file is the same as no login.
      return {};
    }
  }

  read(): StoredConfig | undefined {
    const file = this.readFile();
    const { profiles: _others, ...top } = file;
    const config = this.profile === DEFAULT_PROFILE ? top : file.profiles?.[this.profile];
    return typeof config?.api_url === 'string' ? (config as StoredConfig) : undefined;
  }

  /**
   * Writes the tokens readable by the owner only: the directory 0700, the
   * file created 0600 under a temporary name and renamed over the old one, so
   * that no reader ever sees a half-written file or wider permissions.
   */
  write(config: StoredConfig): void {
    const current = this.readFile();
    const profiles = { ...current.profiles };
    if (this.profile !== DEFAULT_PROFILE) profiles[this.profile] = config;
    const { profiles: _p, ...top } = current;
    const next: StoredFile = { ...(this.profile === DEFAULT_PROFILE ? config : top), ...(Object.keys(profiles).length ? { profiles } : {}) };
    const dir = path.dirname(this.file);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
    const temp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, JSON.stringify(next, null, 2) + '\n', { mode: 0o600 });
    fs.chmodSync(temp, 0o600);
    fs.renameSync(temp, this.file);
  }

  /** Drops the tokens and keeps `api_url`, so the next `relay login` goes to the same API. */
  clearSession(): void {
    const current = this.read();
    if (current) this.write({ api_url: current.api_url });
  }
}

/** The config of `--profile` (else RELAY_PROFILE, else the default profile). */
export const profileStore = (opts: { profile?: string }) => new ConfigStore(configPath(), profileName(opts.profile));

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
