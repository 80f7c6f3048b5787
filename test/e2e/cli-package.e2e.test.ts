import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Receiver, startReceiver } from '../delivery/receiver';
import { PASSWORD, uniqueEmail } from '../support/accounts';
import { rest } from '../support/api';
import { hubSignature, postHook } from '../support/ingress-helpers';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestDatabase, type TestDatabase } from '../support/test-env';
import { hasTmux, Terminal } from '../cli/tmux';

const REPO = path.resolve(__dirname, '..', '..');
const CLI_PACKAGE = path.join(REPO, 'packages', 'cli');
const BUILT_FROM = 'c0ffee0123456789abcdef0123456789abcdef01';

/**
 * The CLI package stands alone: a copy of packages/cli by itself (nothing else of the repository beside it) installs
 * its own devDependencies from its own lock, packs, and the tarball installs into an empty prefix without the network
 * (it has no dependencies to fetch) and is used from there against a running service: `relay listen` runs in a real
 * terminal (tmux), where its screen and keys are what a developer sees.
 */
describe('the relay CLI package (packages/cli)', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-cli-package-'));
  const prefix = path.join(work, 'prefix');
  const configHome = path.join(work, 'config');
  const relayBin = path.join(prefix, 'bin', 'relay');
  // Only node on PATH: nothing of the checkout (its node_modules, its bin/) can be found from there.
  const env = { PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, HOME: work, XDG_CONFIG_HOME: configHome };
  const relay = (args: string[]) => execFileSync(relayBin, args, { cwd: work, env, encoding: 'utf8' });
  let tarball: string;
  let db: TestDatabase;
  let service: ServiceProcess;
  let receiver: Receiver;
  const term = new Terminal();

  beforeAll(async () => {
    const alone = path.join(work, 'cli-package');
    fs.cpSync(CLI_PACKAGE, alone, { recursive: true, filter: (from) => !/\/(node_modules|dist)$|\.tgz$/.test(from) });
    execFileSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: alone, stdio: 'ignore' });
    // A copy outside any checkout: the commit comes from RELAY_BUILD_COMMIT, as in an image build.
    const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
      cwd: alone,
      env: { ...process.env, RELAY_BUILD_COMMIT: BUILT_FROM },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    // The prepack script (the bundle's build) prints its line before npm's JSON.
    tarball = path.join(work, (JSON.parse(packed.slice(packed.indexOf('[\n'))) as Array<{ filename: string }>)[0].filename);
    execFileSync('npm', ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tarball], { cwd: work, stdio: 'ignore' });
    db = await createTestDatabase();
    service = await startServiceProcess({ databaseUrl: db.url });
    receiver = await startReceiver();
  }, 240_000);

  afterAll(async () => {
    term.close();
    await receiver?.close();
    await service?.stop();
    await db?.drop();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('is one bundled file with no dependencies, and prints its version and its client commands', () => {
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n').sort();
    expect(listing).toEqual(['package/LICENSE', 'package/README.md', 'package/dist/relay.js', 'package/package.json']);
    const manifest = JSON.parse(fs.readFileSync(path.join(CLI_PACKAGE, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.dependencies).toBeUndefined();
    expect(fs.readdirSync(path.join(prefix, 'lib', 'node_modules'))).toEqual(['@webhook-relay']);

    expect(relay(['--version']).trim()).toBe(`${manifest.version} (commit ${BUILT_FROM.slice(0, 12)})`);
    const began = performance.now();
    const help = relay(['--help']);
    console.log(`installed relay --help: ${Math.round(performance.now() - began)} ms (load average ${os.loadavg()[0].toFixed(1)})`);
    expect(help).toMatch(/^The webhook relay client: /m);
    const commands = [...help.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]);
    // The service's commands (start, api, worker, migrate, …) need the service: not in this package.
    expect(commands).toEqual(['login', 'logout', 'whoami', 'listen', 'trigger', 'schema', 'help']);
  });

  it('logs in (password, then --api-key), says who is logged in, and forwards events with relay listen', async () => {
    const email = uniqueEmail('packaged');
    const signup = await rest(service.baseUrl, 'POST', '/v1/auth/signup', { body: { email, password: PASSWORD } });
    const endpoint = await rest(service.baseUrl, 'POST', '/v1/endpoints', { token: signup.body.access_token, body: { name: 'Packaged', slug: `packaged-${Date.now()}` } });
    expect(endpoint.status).toBe(201);

    expect(relay(['login', '--api-url', service.baseUrl, '--email', email, '--password', PASSWORD])).toBe(`logged in as ${email} at ${service.baseUrl}\n`);
    expect(relay(['whoami'])).toBe(`${email} at ${service.baseUrl}\n`);
    // A machine's login (CI, containers): a project API key.
    const created = await rest(service.baseUrl, 'POST', '/v1/api-keys', { token: signup.body.access_token, body: { name: 'packaged' } });
    expect(relay(['login', '--api-url', service.baseUrl, '--api-key', created.body.key, '--profile', 'machine'])).toMatch(/^logged in with API key /);

    const port = new URL(receiver.url).port;
    const received = () => receiver.requests.map((r) => r.body);
    if (!hasTmux) throw new Error('tmux is needed: apt-get install -y tmux');
    term.runIsolated('listen', [relayBin, 'listen', String(port), endpoint.body.slug], env, work);
    await term.waitFor('listen', new RegExp(`Ready! Forwarding ${endpoint.body.slug} → POST http://localhost:${port}/`));
    const body = JSON.stringify({ order: 42, from: 'the packaged CLI' });
    // Ingest until the session is connected and the event comes through (the first may arrive before it subscribed).
    for (let i = 0; i < 100 && !received().includes(body); i++) {
      if (i % 20 === 0) {
        const res = await postHook(service.baseUrl, endpoint.body.slug, body, hubSignature(endpoint.body.signing_secret, body));
        expect(res.status).toBe(202);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(received()).toContain(body);
    const [, eventId] = await term.waitFor('listen', new RegExp(`${endpoint.body.slug}\\s+POST /\\s+→\\s+200\\s+\\d+ ms\\s+([0-9a-f-]{36})`));
    term.keys('listen', 'd');
    await term.waitFor('listen', new RegExp(`── event ${eventId} [\\s\\S]*\\n {4}\\{"order":42,"from":"the packaged CLI"\\}\\n  response  200\\n`));
    term.keys('listen', 'q');
    const screen = (await term.waitFor('listen', /EXIT=(\d+)/)).input!;
    expect(screen).toContain('EXIT=0');
    expect(screen).not.toMatch(/\n\s+at /);
  }, 120_000);
});
