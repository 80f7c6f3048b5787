import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import { PASSWORD, uniqueEmail } from '../support/accounts';
import { rest } from '../support/api';
import { freePort } from '../support/free-port';
import { hubSignature, postHook } from '../support/ingress-helpers';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestDatabase, type TestDatabase } from '../support/test-env';
import { RELAY_BIN, runCli, tempConfigHome } from './cli-process';
import { startTcpProxy } from './tcp-proxy';

/** What the developer's local server received. */
interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * `relay login` / `listen` / `whoami` / `logout` as a developer runs them: the
 * service started with `relay start`, the CLI as a child process with its own
 * XDG_CONFIG_HOME, a local receiver on the port given to `listen`.
 */
describe('relay listen, end to end', () => {
  let db: TestDatabase;
  let service: ServiceProcess;
  let pg: Client;
  let receiver: http.Server;
  let receiverPort: number;
  const received: Received[] = [];
  const config = tempConfigHome();
  let user: { email: string; token: string };
  let source: { slug: string; secret: string };

  const cli = (args: string[], env: Record<string, string> = {}, home = config.home) => runCli(args, { XDG_CONFIG_HOME: home, ...env });

  beforeAll(async () => {
    db = await createTestDatabase();
    // The shortest access-token lifetime: the tunnel outlives one in the reconnect test.
    service = await startServiceProcess({ databaseUrl: db.url, env: { RELAY_ACCESS_TOKEN_TTL_SECONDS: '60' } });
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        res.writeHead(201, { 'content-type': 'text/plain', 'x-laptop': 'yes' }).end('ok from laptop');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, resolve));
    receiverPort = (receiver.address() as AddressInfo).port;

    const email = uniqueEmail('dev');
    const signup = await rest(service.baseUrl, 'POST', '/v1/auth/signup', { body: { email, password: PASSWORD } });
    user = { email, token: signup.body.access_token };
    const endpoint = await rest(service.baseUrl, 'POST', '/v1/endpoints', { token: user.token, body: { name: 'Shop', slug: `shop-${Date.now()}` } });
    expect(endpoint.status).toBe(201);
    source = { slug: endpoint.body.slug, secret: endpoint.body.signing_secret };
  }, 120_000);

  afterAll(async () => {
    await new Promise((resolve) => receiver?.close(resolve));
    await pg?.end();
    await service?.stop();
    await db?.drop();
    config.cleanup();
  });

  const ingest = async (body: string, headers: Record<string, string> = {}) => {
    const res = await postHook(service.baseUrl, source.slug, body, { ...hubSignature(source.secret, body), ...headers });
    expect(res.status).toBe(202);
    return res.body.event_id!;
  };

  /** The CLI counts as connected once its subscription's presence row exists. */
  const waitConnected = async (count = 1) => {
    for (let i = 0; i < 200; i++) {
      const { rows } = await pg.query('select count(*)::int as n from cli_sessions');
      if (rows[0].n >= count) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the CLI never connected');
  };

  const attemptsOf = async (eventId: string) => {
    // A fresh token: the suite outlives the 60 s ones the service issues.
    const token = (await rest(service.baseUrl, 'POST', '/v1/auth/login', { body: { email: user.email, password: PASSWORD } })).body.access_token;
    for (let i = 0; i < 200; i++) {
      const res = await rest(service.baseUrl, 'GET', `/v1/attempts?event_id=${eventId}`, { token });
      if (res.body.data?.length) return res.body.data;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no attempt for ${eventId}`);
  };

  /** One line on stderr, the code, and never a stack trace. */
  async function expectFailure(run: ReturnType<typeof runCli>, code: number, message: string | RegExp) {
    expect(await run.exited).toBe(code);
    const lines = run.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(run.stderr()).not.toMatch(/\n\s+at /);
  }

  it('refuses a bad port, a missing login and an unreachable API with their messages and exit codes', async () => {
    await expectFailure(cli(['listen', '70000']), 2, /^relay: invalid port "70000": the port must be a number from 1 to 65535$/);
    await expectFailure(cli(['listen', 'abc', source.slug]), 2, /invalid port/);
    await expectFailure(cli(['listen', '4000', '--api-url', service.baseUrl]), 3, /^relay: not logged in: run `relay login` first$/);
    await expectFailure(cli(['whoami']), 3, /not logged in/);
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    await expectFailure(cli(['login', '--api-url', nowhere, '--email', 'a@b.c', '--password', 'x']), 4, new RegExp(`^relay: API unreachable at ${nowhere}/graphql \\(ECONNREFUSED\\)`));
    await expectFailure(cli(['login', '--api-url', service.baseUrl, '--email', user.email, '--password', 'wrong password']), 1, /^relay: login failed: /);
    expect(fs.existsSync(config.file)).toBe(false);
  });

  it('logs in (prompts read from a pipe), stores only the session in a 0600 file, and says who is logged in', async () => {
    const login = cli(['login', '--api-url', service.baseUrl], {}, config.home);
    login.child.stdin!.end(`${user.email}\n${PASSWORD}\n`);
    expect(await login.exited).toBe(0);
    expect(login.stdout()).toBe(`logged in as ${user.email} at ${service.baseUrl}\n`);
    expect((fs.statSync(config.file).mode & 0o777).toString(8)).toBe('600');
    expect((fs.statSync(path.dirname(config.file)).mode & 0o777).toString(8)).toBe('700');
    const stored = JSON.parse(fs.readFileSync(config.file, 'utf8'));
    expect(Object.keys(stored).sort()).toEqual(['access_token', 'access_token_expires_at', 'api_url', 'refresh_token']);
    expect(stored.api_url).toBe(service.baseUrl);
    expect(fs.readFileSync(config.file, 'utf8')).not.toContain(PASSWORD);

    const whoami = cli(['whoami']);
    expect(await whoami.exited).toBe(0);
    expect(whoami.stdout()).toBe(`${user.email} at ${service.baseUrl}\n`);
  });

  it('forwards signed events to the local port with their exact body and headers, and records the local answer', async () => {
    const listen = cli(['listen', String(receiverPort), source.slug, '--path', '/webhooks', '--output', 'json']);
    try {
      await listen.waitFor(/"message":"Ready! Forwarding/);
      await listen.waitFor(new RegExp(`"message":"${source.slug} receives at http://\\S+/hooks/${source.slug}"`));
      await waitConnected();
      const bodies = ['{ "order":  1, "note": "héllo" }', '{"order":2}'];
      const ids = [];
      for (const body of bodies) ids.push(await ingest(body, { 'X-Custom': 'kept' }));
      await listen.waitFor(new RegExp(`"event_id":"${ids[1]}"`));
      await listen.waitFor(new RegExp(`"event_id":"${ids[0]}"`));

      for (const [i, body] of bodies.entries()) {
        const got = received.find((r) => r.body === body)!;
        expect(got).toMatchObject({ method: 'POST', url: '/webhooks', body });
        expect(got.headers).toMatchObject({ 'content-type': 'application/json', 'x-custom': 'kept', 'x-hub-signature-256': hubSignature(source.secret, body)['X-Hub-Signature-256'] });
        expect(Object.entries(got.headers).find(([name]) => name.endsWith('-event-id'))?.[1]).toBe(ids[i]);
      }

      const lines = listen.stdout().trim().split('\n').map((l) => JSON.parse(l));
      expect(lines.every((l) => ['forward', 'notice'].includes(l.type))).toBe(true);
      for (const id of ids) {
        const line = lines.find((l) => l.type === 'forward' && l.event_id === id);
        expect(line).toMatchObject({ source: source.slug, method: 'POST', path: '/webhooks', status: 201, error: null, skipped: false });
        const [attempt] = await attemptsOf(id);
        expect(attempt).toMatchObject({ status: 'success', status_code: 201, response_body: 'ok from laptop', latency_ms: line.latency_ms });
        expect(attempt.response_headers).toMatchObject({ 'content-type': 'text/plain', 'x-laptop': 'yes' });
      }
    } finally {
      expect(await listen.stop()).toBe(0);
    }
  });

  it('says "no sources found" with how to create one when the project has none', async () => {
    const other = tempConfigHome();
    try {
      const email = uniqueEmail('empty');
      await rest(service.baseUrl, 'POST', '/v1/auth/signup', { body: { email, password: PASSWORD } });
      expect(await cli(['login', '--api-url', service.baseUrl], { RELAY_EMAIL: email, RELAY_PASSWORD: PASSWORD }, other.home).exited).toBe(0);
      await expectFailure(cli(['listen', '4000'], {}, other.home), 5, /^relay: no sources found.*: create one with `POST \/v1\/endpoints/);
      // Another project's slug: the same exit code, the slug named, and what this project has.
      await expectFailure(
        cli(['listen', '4000', source.slug], {}, other.home),
        5,
        new RegExp(`^relay: no source "${source.slug}" in this project: it has none yet; create one in the dashboard or with POST /v1/endpoints$`),
      );
    } finally {
      other.cleanup();
    }
  });

  it('names the project\'s sources when the slug given is not one of them (a typo, or the name without its suffix)', async () => {
    await expectFailure(cli(['listen', '4000', 'shop']), 5, new RegExp(`^relay: no source "shop" in this project: its source is ${source.slug}$`));
    await expectFailure(cli(['trigger', 'shop']), 5, new RegExp(`^relay: no source "shop" in this project: its source is ${source.slug}$`));
    // A transform that does not exist is named as such, not as a source.
    await expectFailure(cli(['listen', '4000', source.slug, '--transform', 'nope']), 1, /^relay: Transform nope was not found\.$/);
  });

  it('refreshes an expired access token silently, and says "refresh failed" when the refresh is refused', async () => {
    const stored = JSON.parse(fs.readFileSync(config.file, 'utf8'));
    fs.writeFileSync(config.file, JSON.stringify({ ...stored, access_token_expires_at: new Date(Date.now() - 1000).toISOString() }));
    const refreshed = cli(['whoami']);
    expect(await refreshed.exited).toBe(0);
    const after = JSON.parse(fs.readFileSync(config.file, 'utf8'));
    expect(after.refresh_token).not.toBe(stored.refresh_token);
    expect((fs.statSync(config.file).mode & 0o777).toString(8)).toBe('600');

    // The spent refresh token again, once its successor is spent too (a replay the API's reuse grace does not
    // forgive, docs/accounts.md): the API refuses it (and revokes its family).
    expect((await rest(service.baseUrl, 'POST', '/v1/auth/refresh', { body: { refresh_token: after.refresh_token } })).status).toBe(200);
    fs.writeFileSync(config.file, JSON.stringify({ ...after, refresh_token: stored.refresh_token, access_token_expires_at: new Date(0).toISOString() }));
    await expectFailure(cli(['whoami']), 3, /^relay: refresh failed \(session expired, login again\)/);
    await expectFailure(cli(['listen', String(receiverPort)]), 3, /refresh failed \(session expired, login again\)/);
  });

  it('reconnects by itself after a drop and says so, and outlives its access token without a gap', async () => {
    const proxy = await startTcpProxy(Number(new URL(service.baseUrl).port));
    const home = tempConfigHome();
    try {
      expect(await cli(['login', '--api-url', proxy.url], { RELAY_EMAIL: user.email, RELAY_PASSWORD: PASSWORD }, home.home).exited).toBe(0);
      const loggedIn = JSON.parse(fs.readFileSync(home.file, 'utf8'));
      const { rows } = await pg.query('select count(*)::int as n from cli_sessions');
      const listen = cli(['listen', String(receiverPort), source.slug], { NO_COLOR: '1' }, home.home);
      try {
        await listen.waitFor(/Ready! Forwarding/);
        await waitConnected(rows[0].n + 1);
        proxy.dropAll();
        await listen.waitFor(/connection lost \(\d+[^)]*\): reconnecting…/);
        await listen.waitFor(/> reconnected/);
        await waitConnected(rows[0].n + 1);
        const afterDrop = await ingest('{"after":"drop"}');
        await listen.waitFor(new RegExp(`201\\s+\\d+ ms\\s+${afterDrop}`));

        // The API closes a socket when its access token expires: by then the CLI has moved to a fresh one.
        const expiry = Date.parse(loggedIn.access_token_expires_at);
        while (Date.now() < expiry + 2_000) await new Promise((r) => setTimeout(r, 500));
        expect(JSON.parse(fs.readFileSync(home.file, 'utf8')).access_token).not.toBe(loggedIn.access_token);
        const afterExpiry = await ingest('{"after":"expiry"}');
        await listen.waitFor(new RegExp(`201\\s+\\d+ ms\\s+${afterExpiry}`));
        expect((await attemptsOf(afterExpiry))[0]).toMatchObject({ status: 'success', status_code: 201 });
        expect(listen.stdout().match(/connection lost/g)).toHaveLength(1);
        expect(listen.stdout()).not.toContain('\x1b[');
      } finally {
        expect(await listen.stop()).toBe(0);
      }
    } finally {
      await proxy.close();
      home.cleanup();
    }
  }, 120_000);

  describe('in a real terminal (tmux)', () => {
    const hasTmux = (() => {
      try {
        execFileSync('tmux', ['-V']);
        return true;
      } catch {
        return false;
      }
    })();
    const socket = `relay-test-${process.pid}`;
    const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
    const screen = () => tmux('capture-pane', '-p', '-t', 'listen', '-S', '-200');
    const waitScreen = async (pattern: RegExp, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(screen())) {
        if (Date.now() > deadline) throw new Error(`the screen never showed ${pattern}:\n${screen()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    afterAll(() => {
      if (hasTmux) tmux('kill-server');
    });

    (hasTmux ? it : it.skip)('h helps, p pauses, r replays, c changes the delay, q and Ctrl+C exit 0', async () => {
      const relogin = cli(['login', '--api-url', service.baseUrl], { RELAY_EMAIL: user.email, RELAY_PASSWORD: PASSWORD });
      expect(await relogin.exited).toBe(0);
      const { rows } = await pg.query('select count(*)::int as n from cli_sessions');
      const command = `cd ${JSON.stringify(path.dirname(path.dirname(RELAY_BIN)))} && env XDG_CONFIG_HOME=${JSON.stringify(config.home)} node ${JSON.stringify(RELAY_BIN)} listen ${receiverPort} ${source.slug}; echo "EXIT=$?"; sleep 600`;
      tmux('new-session', '-d', '-s', 'listen', '-x', '160', '-y', '40', command);
      await waitScreen(/Ready! Forwarding .* → POST http:\/\/localhost:\d+\//);
      await waitConnected(rows[0].n + 1);

      tmux('send-keys', '-t', 'listen', 'h');
      await waitScreen(/p {2}pause \/ resume/);

      tmux('send-keys', '-t', 'listen', 'p');
      await waitScreen(/paused: events are recorded as skipped/);
      const before = received.length;
      const paused = await ingest('{"while":"paused"}');
      await waitScreen(new RegExp(`skipped \\(paused\\).*${paused}`));
      expect(received.length).toBe(before);
      expect((await attemptsOf(paused))[0]).toMatchObject({ status_code: null });

      tmux('send-keys', '-t', 'listen', 'p');
      await waitScreen(/resumed: forwarding events again/);
      const live = await ingest('{"after":"resume"}');
      await waitScreen(new RegExp(`POST /\\s+→\\s+201\\s+\\d+ ms\\s+${live}`));

      tmux('send-keys', '-t', 'listen', 'r');
      await waitScreen(new RegExp(`replaying ${live}`));
      await waitScreen(new RegExp(`201\\s+\\d+ ms\\s+${live}\\s+\\(replay\\)`));
      expect(received.filter((r) => r.body === '{"after":"resume"}')).toHaveLength(2);

      // c: the menu, then a delay of 250 ms for the session.
      tmux('send-keys', '-t', 'listen', 'c');
      await waitScreen(/change: 1\) sources \[.*\] {2}2\) transform \[none\] {2}3\) template \[none\] {2}4\) delay \[0 ms\]/);
      tmux('send-keys', '-t', 'listen', '4', 'Enter');
      await waitScreen(/delay in ms \(0-10000\):/);
      tmux('send-keys', '-t', 'listen', '250', 'Enter');
      await waitScreen(new RegExp(`now forwarding ${source.slug} \\(delay 250 ms\\)`));
      const delayed = await ingest('{"after":"change"}');
      await waitScreen(new RegExp(`201\\s+\\d+ ms\\s+${delayed}`));

      tmux('send-keys', '-t', 'listen', 'q');
      await waitScreen(/EXIT=0/);

      // Ctrl+C too exits 0, and the next run reuses the same destination.
      const destination = screen().match(/destination (cli:\S+)/)![1];
      tmux('kill-session', '-t', 'listen');
      tmux('new-session', '-d', '-s', 'listen', '-x', '160', '-y', '40', command);
      await waitScreen(/Ready! Forwarding/);
      expect(screen().match(/destination (cli:\S+)/)![1]).toBe(destination);
      tmux('send-keys', '-t', 'listen', 'C-c');
      await waitScreen(/EXIT=0/);
    });
  });
});
