import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');
const COMPOSE_FILE = path.join(REPO, 'docker-compose.yml');

/** `docker compose` (the plugin) or `docker-compose` (Debian's package, which .ci/run installs). */
function composeCommand(): string[] {
  if (spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' }).status === 0) return ['docker', 'compose'];
  if (spawnSync('docker-compose', ['version'], { encoding: 'utf8' }).status === 0) return ['docker-compose'];
  throw new Error('neither `docker compose` nor `docker-compose` is installed (bash .ci/run installs Debian\'s docker-compose)');
}

function compose(args: string[], env: Record<string, string> = {}) {
  const [cmd, ...pre] = composeCommand();
  return spawnSync(cmd, [...pre, '-f', COMPOSE_FILE, ...args], {
    cwd: REPO,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
  });
}

/** Issue 20.3: docker-compose.yml runs Temporal on current images and its documented schema set-up. */
describe('docker-compose.yml', () => {
  const secrets = { RELAY_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`, RELAY_JWT_SECRET: 'x'.repeat(48) };

  it('is a valid compose file (`compose config`)', () => {
    const out = compose(['config', '-q'], secrets);
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
  });

  it('refuses to start without the secrets it needs', () => {
    const out = compose(['config', '-q']);
    expect(out.status).not.toBe(0);
    expect(out.stderr).toMatch(/RELAY_ENCRYPTION_KEYS/);
  });

  it('sets Temporal up with temporalio/server and admin-tools, not auto-setup, in order', () => {
    const out = compose(['config'], secrets);
    expect(out.status).toBe(0);
    const text = fs.readFileSync(COMPOSE_FILE, 'utf8');
    expect(text).not.toMatch(/temporalio\/auto-setup/);
    expect(compose(['config', '--services'], secrets).stdout.split('\n').filter(Boolean).sort()).toEqual(
      ['postgres', 'relay-api', 'relay-migrate', 'relay-worker', 'temporal', 'temporal-namespace', 'temporal-schema', 'temporal-ui'].sort(),
    );
    // The resolved file: each service's image and what it waits for.
    const resolved = out.stdout;
    const service = (name: string) => {
      const start = resolved.indexOf(`\n  ${name}:\n`);
      const next = resolved.slice(start + 1).search(/\n {2}[a-z][\w-]*:\n/);
      return resolved.slice(start, next < 0 ? undefined : start + 1 + next);
    };
    expect(service('temporal')).toMatch(/image: temporalio\/server:\d+\.\d+\.\d+/);
    expect(service('temporal')).toMatch(/temporal-schema:\s+condition: service_completed_successfully/);
    expect(service('temporal-schema')).toMatch(/image: temporalio\/admin-tools:/);
    // temporal-sql-tool's documented sequence, on both databases (`$$` is compose's escaped `$`).
    expect(text).toMatch(/for db in temporal temporal_visibility; do/);
    expect(text).toMatch(/temporal-sql-tool --db "\$\$db" setup-schema -v 0\.0/);
    expect(text).toMatch(/temporal-sql-tool --db "\$\$db" update-schema -d "\/etc\/temporal\/schema\/postgresql\/v12\/\$\$schema\/versioned"/);
    expect(service('relay-migrate')).toMatch(/temporal-namespace:\s+condition: service_completed_successfully/);
  });
});
