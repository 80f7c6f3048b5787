import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { PASSWORD, uniqueEmail } from '../support/accounts';
import { rest } from '../support/api';
import { freePort } from '../support/free-port';
import { hubSignature, postHook } from '../support/ingress-helpers';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestDatabase, type TestDatabase, uniqueTaskQueue } from '../support/test-env';
import { runCli, tempConfigHome } from './cli-process';
import { waitConnected as waitListening } from './listen-env';
import { startTcpProxy } from './tcp-proxy';
import { hasTmux, Terminal } from './tmux';

/**
 * Issue 17 item 4: `relay listen` survives the API's restarts. The service is
 * `relay start` on a fixed port and database; it is stopped gracefully
 * (SIGINT: the API closes its sockets with 1012 "service restart" first) and
 * killed with SIGKILL, and started again each time, under a `listen` running
 * in a real terminal, which reconnects and forwards the next event.
 */
(hasTmux ? describe : describe.skip)('relay listen across API restarts', () => {
  let db: TestDatabase;
  let service: ServiceProcess;
  let port: number;
  const taskQueue = uniqueTaskQueue('restart');
  let pg: Client;
  let receiver: http.Server;
  let receiverPort: number;
  const received: string[] = [];
  const config = tempConfigHome();
  const term = new Terminal();
  let source: { slug: string; secret: string };
  let email: string;

  const startService = async () => {
    service = await startServiceProcess({ databaseUrl: db.url, port, taskQueue });
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    port = await freePort();
    await startService();
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push(body);
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, resolve));
    receiverPort = (receiver.address() as AddressInfo).port;
    email = uniqueEmail('restart');
    const token = (await rest(service.baseUrl, 'POST', '/v1/auth/signup', { body: { email, password: PASSWORD } })).body.access_token;
    const endpoint = await rest(service.baseUrl, 'POST', '/v1/endpoints', { token, body: { name: 'Shop', slug: `shop-${Date.now()}` } });
    source = { slug: endpoint.body.slug, secret: endpoint.body.signing_secret };
    expect(await runCli(['login', '--api-url', service.baseUrl], { XDG_CONFIG_HOME: config.home, RELAY_EMAIL: email, RELAY_PASSWORD: PASSWORD }).exited).toBe(0);
  }, 120_000);

  afterAll(async () => {
    term.close();
    await new Promise((resolve) => receiver?.close(resolve));
    await pg?.end();
    await service?.stop();
    await db?.drop();
    config.cleanup();
  });

  const ingest = async (body: string) => {
    const res = await postHook(service.baseUrl, source.slug, body, hubSignature(source.secret, body));
    expect(res.status).toBe(202);
    return res.body.event_id!;
  };

  /** A fresh presence row: the CLI's subscription is open on the running API. */
  const waitConnected = (since: Date) => waitListening(pg, since);

  /**
   * Waits until the API has dropped every presence row (it noticed the cut socket, or the CLI's exit: no CLI is
   * connected), then ingests `bodies`, which end `skipped` (not failed, not dead-lettered); their event ids.
   */
  const ingestWhileNoCli = async (bodies: string[]): Promise<string[]> => {
    for (let i = 0; i < 100; i++) {
      const { rows } = await pg.query('select count(*)::int as n from cli_sessions where heartbeat_at > now() - interval \'15 seconds\'');
      if (rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const ids: string[] = [];
    for (const body of bodies) ids.push(await ingest(body));
    for (let i = 0; i < 300; i++) {
      const { rows } = await pg.query('select status from deliveries where event_id = any($1::uuid[])', [ids]);
      if (rows.length === ids.length && rows.every((r) => r.status === 'skipped')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const { rows: statuses } = await pg.query('select status, dead_lettered_at from deliveries where event_id = any($1::uuid[])', [ids]);
    expect(statuses).toEqual(ids.map(() => expect.objectContaining({ status: 'skipped', dead_lettered_at: null })));
    return ids;
  };

  it('reconnects after a graceful stop (1012) and after kill -9, forever, and forwards the next event; --exit-after-disconnect gives up', async () => {
    let since = new Date();
    term.run('listen', ['listen', String(receiverPort), source.slug], { XDG_CONFIG_HOME: config.home });
    await term.waitFor('listen', /Ready! Forwarding/);
    await waitConnected(since);
    const first = await ingest('{"n":1}');
    await term.waitFor('listen', new RegExp(`200\\s+\\d+ ms\\s+${first}`));

    // Graceful: SIGINT to `relay start`. The API closes the socket with "service restart" before it stops.
    expect(await service.stop()).toBe(0);
    await term.waitFor('listen', /connection lost \(1012 service restart\): reconnecting…/);
    await term.waitFor('listen', /reconnecting \(attempt 2\)…/);
    since = new Date();
    await startService();
    await term.waitFor('listen', /reconnected after \d+ s/);
    await waitConnected(since);
    const second = await ingest('{"n":2}');
    await term.waitFor('listen', new RegExp(`200\\s+\\d+ ms\\s+${second}`));
    expect(term.screen('listen')).not.toMatch(/EXIT=|ended the tunnel/);

    // A second CLI that gives up after 2 s without the API.
    const giveUp = runCli(['listen', String(receiverPort), source.slug, '--exit-after-disconnect', '2'], { XDG_CONFIG_HOME: config.home });
    await giveUp.waitFor(/Ready! Forwarding/);

    // Abrupt: SIGKILL (no close frame at all), then the same service again on the same database.
    service.child.kill('SIGKILL');
    await term.waitFor('listen', /connection lost \(1006[^)]*\): reconnecting…/);
    const code = await giveUp.exited;
    expect(giveUp.stderr()).toBe('relay: no connection to the API for 2 s (--exit-after-disconnect): giving up\n');
    expect(code).toBe(4);
    await term.waitFor('listen', /reconnecting \(attempt 3\)…/);
    since = new Date();
    await startService();
    await term.waitFor('listen', /reconnected after \d+ s[\s\S]*reconnected after \d+ s/);
    await waitConnected(since);
    const third = await ingest('{"n":3}');
    await term.waitFor('listen', new RegExp(`200\\s+\\d+ ms\\s+${third}`));
    expect(received).toEqual(expect.arrayContaining(['{"n":1}', '{"n":2}', '{"n":3}']));

    term.keys('listen', 'q');
    await term.waitFor('listen', /EXIT=0/);
  }, 180_000);

  for (const how of ['f', '--forward-missed'] as const) {
  it(`offers the events that arrived while it was away (skipped, not failed) and forwards them to this session (${how})`, async () => {
    const win = how === 'f' ? 'away-f' : 'away-auto';
    const proxy = await startTcpProxy(port);
    const home = tempConfigHome();
    try {
      expect(await runCli(['login', '--api-url', proxy.url], { XDG_CONFIG_HOME: home.home, RELAY_EMAIL: email, RELAY_PASSWORD: PASSWORD }).exited).toBe(0);
      const since = new Date();
      term.run(win, ['listen', String(receiverPort), source.slug, ...(how === 'f' ? [] : [how])], { XDG_CONFIG_HOME: home.home });
      await term.waitFor(win, /Ready! Forwarding/);
      await waitConnected(since);

      // The network goes away (the API keeps running): two events arrive meanwhile.
      proxy.block(true);
      proxy.dropAll();
      await term.waitFor(win, /connection lost \(1006[^)]*\): reconnecting…/);
      const bodies = [`{"away":1,"how":"${how}"}`, `{"away":2,"how":"${how}"}`];
      const missed = await ingestWhileNoCli(bodies);

      proxy.block(false);
      await term.waitFor(win, /reconnected after \d+ s/);
      if (how === 'f') {
        await term.waitFor(win, /2 events arrived while no CLI was listening \(since \d\d:\d\d:\d\d\): press f to forward them/);
        term.keys(win, 'f');
      } else {
        await term.waitFor(win, /forwarding 2 missed events/);
        expect(term.screen(win)).not.toMatch(/press f/);
      }
      for (const id of missed) await term.waitFor(win, new RegExp(`200\\s+\\d+ ms\\s+${id}\\s+\\(replay\\)`));
      expect(received).toEqual(expect.arrayContaining(bodies));
      term.keys(win, 'q');
      await term.waitFor(win, /EXIT=0/);
    } finally {
      await proxy.close();
      home.cleanup();
    }
  }, 120_000);
  }
  for (const how of ['q', 'kill -9'] as const) {
  it(`offers, when listen starts again after ${how}, the events that arrived while no CLI was listening, and f forwards exactly those`, async () => {
    const run = (win: string, extra: string[] = []) => term.run(win, ['listen', String(receiverPort), source.slug, ...extra], { XDG_CONFIG_HOME: config.home });
    const tag = how === 'q' ? 'quit' : 'killed';
    const first = `${tag}-1`;
    let since = new Date();
    run(first);
    await term.waitFor(first, /Ready! Forwarding/);
    await waitConnected(since);
    // The first run forwards one event live: that one is never offered as missed.
    const live = await ingest(`{"live":"${tag}"}`);
    await term.waitFor(first, new RegExp(`200\\s+\\d+ ms\\s+${live}`));
    if (how === 'q') {
      term.keys(first, 'q');
      await term.waitFor(first, /EXIT=0/);
    } else {
      term.signal(first, 'SIGKILL');
      await term.waitFor(first, /EXIT=137/);
    }

    const bodies = [`{"missed":1,"after":"${tag}"}`, `{"missed":2,"after":"${tag}"}`];
    const missed = await ingestWhileNoCli(bodies);

    // The same destination again (same user, machine and source); after kill -9 with --output json.
    const second = `${tag}-2`;
    since = new Date();
    run(second, how === 'q' ? [] : ['--output', 'json']);
    if (how === 'q') {
      await term.waitFor(second, /2 events arrived while no CLI was listening \(since \d\d:\d\d:\d\d\): press f to forward them/);
    } else {
      const [line] = await term.waitFor(second, /\{"type":"missed".*\}/);
      expect(JSON.parse(line)).toEqual(expect.objectContaining({ count: 2, action: 'offered', event_ids: missed }));
    }
    await waitConnected(since);
    term.keys(second, 'f');
    for (const id of missed) await term.waitFor(second, how === 'q' ? new RegExp(`200\\s+\\d+ ms\\s+${id}\\s+\\(replay\\)`) : new RegExp(`"event_id":"${id}".*"replay":true`));
    // Exactly those, oldest first: two replays, and the live event was not sent again.
    const screen = term.screen(second);
    expect(screen.match(how === 'q' ? /\(replay\)/g : /"replay":true/g)).toHaveLength(2);
    expect(screen).not.toContain(live);
    expect(received.filter((b) => b === `{"live":"${tag}"}`)).toHaveLength(1);
    expect(received.filter((b) => bodies.includes(b))).toEqual(bodies);
    term.keys(second, 'q');
    await term.waitFor(second, /EXIT=0/);

    if (how === 'q') {
      // Forwarded now: a third run offers nothing (its first live event is forwarded with no offer before it).
      const third = `${tag}-3`;
      since = new Date();
      run(third);
      await term.waitFor(third, /Ready! Forwarding/);
      await waitConnected(since);
      const next = await ingest('{"live":"third"}');
      await term.waitFor(third, new RegExp(`200\\s+\\d+ ms\\s+${next}`));
      expect(term.screen(third)).not.toMatch(/arrived while no CLI was listening/);
      term.keys(third, 'q');
      await term.waitFor(third, /EXIT=0/);
    }
  }, 150_000);
  }
  it('without a terminal: the missed line says they are not forwarded; --forward-missed forwards them at start, oldest first', async () => {
    const listen = (extra: string[]) => runCli(['listen', String(receiverPort), source.slug, '--output', 'json', ...extra], { XDG_CONFIG_HOME: config.home });
    const missedLine = async (run: ReturnType<typeof listen>) => JSON.parse((await run.waitFor(/\{"type":"missed".*\}/))[0]);
    // A first run makes (or reuses) the session's destination and forwards one event live.
    const since = new Date();
    const first = listen([]);
    await first.waitFor(/"message":"Ready! Forwarding/);
    await waitConnected(since);
    const live = await ingest('{"live":"no-tty"}');
    await first.waitFor(new RegExp(`"event_id":"${live}"`));
    expect(await first.stop()).toBe(0);

    const bodies = ['{"missed":1,"after":"no-tty"}', '{"missed":2,"after":"no-tty"}'];
    const missed = await ingestWhileNoCli(bodies);

    const plain = listen([]);
    try {
      expect(await missedLine(plain)).toEqual(expect.objectContaining({ count: 2, action: 'not_forwarded', event_ids: missed }));
    } finally {
      expect(await plain.stop()).toBe(0);
    }
    expect(received.filter((b) => bodies.includes(b))).toEqual([]);

    const auto = listen(['--forward-missed']);
    try {
      expect(await missedLine(auto)).toEqual(expect.objectContaining({ count: 2, action: 'forwarding', event_ids: missed }));
      for (const id of missed) await auto.waitFor(new RegExp(`"event_id":"${id}".*"replay":true`));
      expect(received.filter((b) => bodies.includes(b))).toEqual(bodies);
    } finally {
      expect(await auto.stop()).toBe(0);
    }
  }, 120_000);
});
