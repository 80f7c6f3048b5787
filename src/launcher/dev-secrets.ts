import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

interface DevSecrets {
  encryptionKeys: string;
  jwtSecret: string;
}

export function devSecretsFile(dataDir: string): string {
  return path.resolve(dataDir, 'dev-secrets.json');
}

/** The development secrets kept in `dataDir`, if a start made them; never writes. */
export function readDevSecrets(dataDir: string): DevSecrets | undefined {
  const file = devSecretsFile(dataDir);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as DevSecrets) : undefined;
}

/**
 * Development convenience: when no encryption key or JWT secret is configured
 * (and NODE_ENV is not production), generate them once and keep them in
 * `<data dir>/dev-secrets.json` (mode 0600), so data sealed by one run can be
 * opened by the next. Production must configure both explicitly.
 */
export function withDevSecrets(env: NodeJS.ProcessEnv, dataDir: string): NodeJS.ProcessEnv {
  if (env.NODE_ENV === 'production' || (env.RELAY_ENCRYPTION_KEYS && env.RELAY_JWT_SECRET)) return env;
  const file = devSecretsFile(dataDir);
  let secrets = readDevSecrets(dataDir);
  if (!secrets) {
    secrets = {
      encryptionKeys: `dev1:${randomBytes(32).toString('base64')}`,
      jwtSecret: randomBytes(48).toString('base64url'),
    };
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  return {
    ...env,
    RELAY_ENCRYPTION_KEYS: env.RELAY_ENCRYPTION_KEYS || secrets.encryptionKeys,
    RELAY_JWT_SECRET: env.RELAY_JWT_SECRET || secrets.jwtSecret,
  };
}
