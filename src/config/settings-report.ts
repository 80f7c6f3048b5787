import { OAUTH_PROVIDERS } from '../common/types';
import { oauthEnvName } from '../oauth/oauth-config';
import type { EnvFile } from './env-file';
import { settingInfo, settingsSchema } from './config';

/**
 * The settings as a person reads them: `.env.example` (generated from the
 * schema), `relay config` (each value in use and where it came from) and the
 * warning about `RELAY_*` names nothing reads. docs/configuration.md.
 */

export type SettingName = keyof typeof settingsSchema.shape;
export const SETTING_NAMES = Object.keys(settingsSchema.shape) as SettingName[];

/** `RELAY_*` variables read by the client commands (`relay login`, `listen`, …), not by the service. */
const CLIENT_SETTINGS = ['RELAY_API_URL', 'RELAY_API_KEY', 'RELAY_PROFILE', 'RELAY_EMAIL', 'RELAY_PASSWORD', 'RELAY_DEBUG'];
/** The repository's own tooling (test set-up, benches, CI, the build) reads these. */
const TOOLING_PREFIXES = ['RELAY_TEST_', 'RELAY_BENCH_', 'RELAY_CI_', 'RELAY_BUILD_'];

const OAUTH_SETTINGS: Array<[string, string]> = [
  ['CLIENT_ID', 'OAuth client id; setting it enables the provider (then the next three are required)'],
  ['CLIENT_SECRET', 'OAuth client secret'],
  ['AUTHORIZE_URL', "the provider's authorization endpoint"],
  ['TOKEN_URL', "the provider's token endpoint"],
  ['USERINFO_URL', "the provider's userinfo endpoint (needed for sign-in)"],
  ['ISSUER', "the provider's issuer identifier; when set, each callback's iss must name it (RFC 9207)"],
  ['SCOPES', 'default scopes, space or comma separated'],
  ['CLIENT_AUTH', 'token-endpoint client authentication: basic (default) or post'],
];
const OAUTH_SECRETS = new Set(['CLIENT_SECRET']);

function info(name: SettingName) {
  const found = settingInfo.get(settingsSchema.shape[name]);
  if (!found) throw new Error(`${name}: the setting has no description in src/config/config.ts`);
  return found;
}

/** The schema's default as it would be written in `.env` (booleans as 1/0), or undefined when it has none. */
export function schemaDefault(name: SettingName): string | undefined {
  const value = (settingsSchema.shape[name].safeParse(undefined) as { data?: unknown }).data;
  if (value === undefined) return undefined;
  return typeof value === 'boolean' ? (value ? '1' : '0') : String(value);
}

/** `.env.example`: every setting, commented out at its default, with its meaning. */
export function envExample(): string {
  const lines = [
    '# webhook relay settings: every variable the service reads, at its default, with its meaning.',
    '# Generated from src/config/config.ts by `npm run config:example`: do not edit by hand.',
    '# Copy this file to .env (read at start from the working directory; the real environment wins),',
    '# uncomment what you change. `relay config` shows what is in use. docs/configuration.md explains them.',
  ];
  for (const name of SETTING_NAMES) {
    const { description, defaultText } = info(name);
    const value = schemaDefault(name);
    lines.push('', `# ${description}${value === undefined ? ` (default: ${defaultText ?? 'none'})` : ''}`, `# ${name}=${value ?? ''}`);
  }
  lines.push('', '# OAuth sign-in and connections, per provider: replace <PROVIDER> with one of', `# ${OAUTH_PROVIDERS.map((p) => p.toUpperCase()).join(', ')}.`);
  for (const [suffix, description] of OAUTH_SETTINGS) lines.push(`# OAUTH_<PROVIDER>_${suffix}=    ${description}`);
  return lines.join('\n') + '\n';
}

function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

/** `RELAY_*` variables that nothing reads (typos, usually), each with the closest name that is read. */
export function unknownSettings(env: NodeJS.ProcessEnv): Array<{ name: string; suggestion: string }> {
  const known = [...SETTING_NAMES, ...CLIENT_SETTINGS];
  return Object.keys(env)
    .filter((name) => name.startsWith('RELAY_') && !known.includes(name) && !TOOLING_PREFIXES.some((p) => name.startsWith(p)))
    .sort()
    .map((name) => ({ name, suggestion: known.reduce((best, k) => (distance(name, k) < distance(name, best) ? k : best)) }));
}

export type SettingSource = 'environment' | '.env' | 'default' | 'derived' | 'unset';

export interface SettingRow {
  name: string;
  /** As in use, secrets masked; undefined when unset. */
  value: string | undefined;
  source: SettingSource;
  /** How a derived value was made, or what applies while it is unset. */
  note?: string;
}

/** What the launcher makes of unset settings, keyed by name (from the command that knows how it runs). */
export type Derived = Partial<Record<string, { value: string; note: string }>>;

function mask(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) {
      url.password = '***';
      return url.toString();
    }
  } catch {
    // Not a URL: masked whole.
  }
  return '***';
}

/** Every setting with the value in use and where it came from; OAuth settings and unknown `RELAY_*` names that are set come last. */
export function describeSettings(env: NodeJS.ProcessEnv, envFile: EnvFile | undefined, derived: Derived): SettingRow[] {
  const fromFile = new Set(envFile?.applied);
  const source = (name: string): SettingSource => (fromFile.has(name) ? '.env' : 'environment');
  const shown = (name: string, value: string, secret: boolean | undefined) => (secret ? mask(value) : value);
  const rows: SettingRow[] = SETTING_NAMES.map((name) => {
    const { secret, defaultText } = info(name);
    const raw = env[name];
    if (raw !== undefined && raw !== '') return { name, value: shown(name, raw, secret), source: source(name) };
    const made = derived[name];
    if (made) return { name, value: shown(name, made.value, secret), source: 'derived', note: made.note };
    const value = schemaDefault(name);
    return value === undefined ? { name, value: undefined, source: 'unset', note: defaultText } : { name, value, source: 'default' };
  });
  for (const provider of OAUTH_PROVIDERS) {
    for (const [suffix] of OAUTH_SETTINGS) {
      const name = oauthEnvName(provider, suffix);
      const raw = env[name];
      if (raw !== undefined) rows.push({ name, value: OAUTH_SECRETS.has(suffix) ? mask(raw) : raw, source: source(name) });
    }
  }
  return rows;
}
