import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

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

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  ports?: Array<{ published?: number | string; target?: number; host_ip?: string; protocol?: string } | string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  deploy?: { replicas?: number; resources?: { limits?: { cpus?: string | number; memory?: string } } };
  read_only?: boolean;
  tmpfs?: string[] | string;
  cap_drop?: string[];
  volumes?: Array<string | { source?: string; target?: string }>;
}

/** Issues 20.3 and 35.2: docker-compose.yml runs Temporal on current images, and is safe to copy. */
describe('docker-compose.yml', () => {
  const secrets = {
    POSTGRES_PASSWORD: 'pg0123456789abcdef',
    RELAY_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
    RELAY_JWT_SECRET: 'x'.repeat(48),
  };
  const resolved = (env: Record<string, string> = secrets) => {
    const out = compose(['config'], env);
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    return parse(out.stdout) as { services: Record<string, Service> };
  };
  const text = fs.readFileSync(COMPOSE_FILE, 'utf8');

  it('is a valid compose file (`compose config`)', () => {
    const out = compose(['config', '-q'], secrets);
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
  });

  it('has no default for a secret: each missing one stops it, named', () => {
    for (const name of Object.keys(secrets)) {
      const { [name]: _missing, ...rest } = secrets as Record<string, string>;
      const out = compose(['config', '-q'], rest);
      expect(out.status).not.toBe(0);
      expect(out.stderr).toMatch(new RegExp(`set ${name}`));
    }
    // The database password is the one given, everywhere it is used; none is written in the file.
    const { services } = resolved();
    expect(services.postgres.environment!.POSTGRES_PASSWORD).toBe(secrets.POSTGRES_PASSWORD);
    expect(services.temporal.environment!.POSTGRES_PWD).toBe(secrets.POSTGRES_PASSWORD);
    expect(services['temporal-schema'].environment!.SQL_PASSWORD).toBe(secrets.POSTGRES_PASSWORD);
    expect(services['relay-worker'].environment!.DATABASE_URL).toBe(`postgres://relay:${secrets.POSTGRES_PASSWORD}@postgres:5432/relay`);
    expect(text).not.toMatch(/PASSWORD: relay|PWD: relay|relay:relay@/);
  });

  it('sets Temporal up with temporalio/server and admin-tools, not auto-setup, in order, with the namespace\'s retention', () => {
    expect(text).not.toMatch(/temporalio\/auto-setup/);
    const { services } = resolved();
    expect(Object.keys(services).sort()).toEqual(
      ['caddy', 'postgres', 'relay-api-1', 'relay-api-2', 'relay-migrate', 'relay-worker', 'temporal', 'temporal-namespace', 'temporal-schema', 'temporal-ui'].sort(),
    );
    expect(services.temporal.image).toMatch(/^temporalio\/server:\d+\.\d+\.\d+$/);
    expect(services.temporal.depends_on!['temporal-schema'].condition).toBe('service_completed_successfully');
    expect(services['temporal-schema'].image).toMatch(/^temporalio\/admin-tools:/);
    // temporal-sql-tool's documented sequence, on both databases (`$$` is compose's escaped `$`).
    expect(text).toMatch(/for db in temporal temporal_visibility; do/);
    expect(text).toMatch(/temporal-sql-tool --db "\$\$db" setup-schema -v 0\.0/);
    expect(text).toMatch(/temporal-sql-tool --db "\$\$db" update-schema -d "\/etc\/temporal\/schema\/postgresql\/v12\/\$\$schema\/versioned"/);
    expect(services['relay-migrate'].depends_on!['temporal-namespace'].condition).toBe('service_completed_successfully');
    // Retention: set when the namespace is created, and on one that exists.
    expect(services['temporal-namespace'].environment!.RETENTION).toBe('72h');
    expect(text).toMatch(/namespace create --namespace default --retention "\$\$RETENTION"/);
    expect(text).toMatch(/namespace update --namespace default --retention "\$\$RETENTION"/);
    // The dynamic config has no testing settings.
    const dynamic = fs.readFileSync(path.join(REPO, 'deploy', 'temporal', 'dynamic-config.yaml'), 'utf8');
    expect(Object.keys(parse(dynamic) as object)).not.toContain('system.forceSearchAttributesCacheRefreshOnRead');
  });

  it('publishes only Caddy (TLS, balancing the API replicas); the API replicas, their metrics and the Temporal UI stay private', () => {
    const { services } = resolved();
    const published = Object.entries(services).flatMap(([name, s]) =>
      (s.ports ?? []).map((p) => {
        // Compose prints short strings (host:published:target[/protocol]) for some ports, long objects for others.
        if (typeof p !== 'string') return `${name} ${p.host_ip ?? '*'}:${p.published}/${p.protocol ?? 'tcp'}`;
        const [spec, protocol = 'tcp'] = p.split('/');
        const parts = spec.split(':');
        return `${name} ${parts.length === 3 ? parts[0] : '*'}:${parts[parts.length - 2] ?? parts[0]}/${protocol}`;
      }),
    );
    expect(published.sort()).toEqual(['caddy *:443/tcp', 'caddy *:443/udp', 'caddy *:80/tcp', 'temporal-ui 127.0.0.1:8233/tcp']);
    expect(services.caddy.environment!.RELAY_API_UPSTREAMS).toBe('relay-api-1:3000 relay-api-2:3000');
    expect(services.caddy.environment!.RELAY_DOMAIN).toBe('localhost');
    expect(resolved({ ...secrets, RELAY_DOMAIN: 'relay.example.com' }).services.caddy.environment!.RELAY_DOMAIN).toBe('relay.example.com');
    const caddyfile = (services.caddy.volumes ?? []).map((v) => (typeof v === 'string' ? v : `${v.source}:${v.target}`)).find((v) => v.includes('Caddyfile'));
    expect(caddyfile).toMatch(/deploy\/caddy\/Caddyfile:\/etc\/caddy\/Caddyfile/);
    for (const api of ['relay-api-1', 'relay-api-2']) {
      const env = services[api].environment!;
      expect(env.PUBLIC_BASE_URL).toBe('https://localhost');
      expect(env.RELAY_TRUST_PROXY).toBe('1');
      expect(env.RELAY_METRICS_PORT).toBe('9464');
    }
  });

  it('runs the relay hardened: read-only root, tmpfs /tmp, no capabilities, health checks on /readyz, memory limits', () => {
    const { services } = resolved();
    for (const name of ['relay-migrate', 'relay-api-1', 'relay-api-2', 'relay-worker']) {
      const s = services[name];
      expect([name, s.read_only, s.cap_drop]).toEqual([name, true, ['ALL']]);
      expect([name, ([] as string[]).concat(s.tmpfs ?? [])]).toEqual([name, ['/tmp']]);
      expect(s.environment!.NODE_ENV).toBe('production');
    }
    for (const name of ['relay-api-1', 'relay-api-2', 'relay-worker']) {
      // The image's check: /readyz of the process the container runs (the worker's on its metrics port).
      expect([name, services[name].healthcheck!.test]).toEqual([name, ['CMD', 'node', 'bin/healthcheck.js']]);
      expect([name, services[name].deploy!.resources!.limits!.memory]).toEqual([name, expect.stringMatching(/^\d+[MG]$/)]);
    }
    expect(services['relay-worker'].deploy!.replicas).toBe(2);
    expect(services['relay-worker'].environment!.RELAY_WORKER_METRICS_PORT).toBe('9464');
  });

  it('points only at files that exist', () => {
    const cited = [...text.matchAll(/\b((?:docs|deploy)\/[\w./-]+\w)/g)].map((m) => m[1]);
    expect(cited.length).toBeGreaterThan(3);
    for (const file of new Set(cited)) expect([file, fs.existsSync(path.join(REPO, file))]).toEqual([file, true]);
    expect(text).not.toMatch(/README "/);
  });
});
