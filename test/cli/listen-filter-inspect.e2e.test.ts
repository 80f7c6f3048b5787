import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { NO_CLI_CONNECTED } from '../../src/cli-sessions/cli-forwarder';
import { FILTERED_BY_SESSION } from '../../src/cli-sessions/cli-limits';
import { PASSWORD } from '../support/accounts';
import { runCli, tempConfigHome } from './cli-process';
import { type ListenEnv, startListenEnv, waitConnected as waitListening } from './listen-env';
import { startTcpProxy } from './tcp-proxy';
import { hasTmux, Terminal } from './tmux';

interface Received {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local server that answers 201 with a JSON body and a header of its own, and keeps what it got. */
async function receiver(): Promise<{ port: number; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ url: req.url!, headers: req.headers, body });
      res.writeHead(201, { 'content-type': 'application/json', 'x-local': 'yes' }).end(JSON.stringify({ got: body.length, pad: 'z'.repeat(5000) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * Issue 19 items 4 (the rest) and 5 in a real terminal: `--event-type` and
 * `--filter` applied on the server (non-matching events never cross the tunnel
 * and are not failures), and the inspect keys ↑/↓, d, o with `--output json` detail.
 */
(hasTmux ? describe : describe.skip)('relay listen filters and inspect', () => {
  let le: ListenEnv;
  const term = new Terminal();
  let source: ListenEnv['source'];
  let pg: ListenEnv['pg'];
  let service: ListenEnv['service'];
  const env = () => le.env();
  const ingest = (body: string, eventType: string, headers: Record<string, string> = {}) => le.ingest(body, eventType, headers);
  const waitConnected = (since: Date) => waitListening(pg, since);
  /** The line of an event forwarded to the local server (201) in window `win`. */
  const waitForwarded = (win: string, eventType: string, id: string) => term.waitFor(win, new RegExp(`${eventType}\\s+${source.slug}\\s+POST /\\s+→\\s+201\\s+\\d+ ms\\s+${id}`));
  /** `q`, and the exit code 0. */
  const quit = async (win: string) => {
    term.keys(win, 'q');
    await term.waitFor(win, /EXIT=0/);
  };

  beforeAll(async () => {
    le = await startListenEnv('repo');
    ({ source, pg, service } = le);
  }, 120_000);

  afterAll(async () => {
    term.close();
    await le?.close();
  });

  /** The deliveries of an event to `cli` destinations, once none is still queued or retrying and, with `count`, the fan-out made that many (at most 30 s). */
  const cliDeliveries = async (eventId: string, count?: number) => {
    for (let i = 0; i < 300; i++) {
      const { rows } = await pg.query(
        `select d.status, (select string_agg(a.error, ' | ') from delivery_attempts a where a.delivery_id = d.id) as errors
           from deliveries d join destinations t on t.id = d.destination_id and t.type = 'cli' where d.event_id = $1`,
        [eventId],
      );
      if ((count === undefined || rows.length === count) && rows.every((r) => r.status !== 'queued' && r.status !== 'retrying')) return rows as Array<{ status: string; errors: string | null }>;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the deliveries of ${eventId} never ended`);
  };

  it('refuses a filter it cannot read, or the API refuses, before Ready!', async () => {
    const syntax = runCli(['listen', '4000', source.slug, '--filter', 'action eq opened'], env());
    expect(await syntax.exited).toBe(2);
    expect(syntax.stderr()).toBe(
      `relay: invalid --filter "action eq opened": the field must be "header.<Name>" or "body.<dot.path>", not "action" (e.g. --filter 'body.action eq opened', --filter 'header.x-env exists')\n`,
    );
    const op = runCli(['listen', '4000', source.slug, '--filter', 'body.action like opened'], env());
    expect(await op.exited).toBe(2);
    expect(op.stderr()).toMatch(/^relay: invalid --filter "body.action like opened": the operator must be one of eq, neq, contains, not_contains, exists, not_exists, regex, not "like"/);
    const regex = runCli(['listen', '4000', source.slug, '--filter', 'body.ref regex (unclosed'], env());
    expect(await regex.exited).toBe(2);
    expect(regex.stderr()).toMatch(/^relay: invalid --filter "body.ref regex \(unclosed": invalid regular expression: /);
    expect(regex.stdout()).not.toContain('Ready!');
  });

  it('--event-type and --filter keep non-matching events on the server: no forward, no failure', async () => {
    const local = await receiver();
    try {
      const since = new Date();
      term.run('filtered', ['listen', String(local.port), source.slug, '--event-type', 'push,ping', '--filter', 'body.action eq opened', '--filter', 'header.x-env exists'], env());
      await term.waitFor('filtered', /Ready! Forwarding/);
      await term.waitFor('filtered', /only events where event type push or ping and body.action eq "opened" and header.x-env exists \(filtered on the server/);
      await waitConnected(since);

      const closed = await ingest('{"action":"closed"}', 'push', { 'X-Env': 'dev' });
      const noHeader = await ingest('{"action":"opened"}', 'push');
      const otherType = await ingest('{"action":"opened"}', 'issues', { 'X-Env': 'dev' });
      const match = await ingest('{"action":"opened","n":1}', 'push', { 'X-Env': 'dev' });
      await waitForwarded('filtered', 'push', match);

      // Another type gets no delivery at all (the destination's event_types); a body or header that does not match
      // ends `skipped` with the reason, without crossing the tunnel. Nothing failed.
      expect(await cliDeliveries(otherType)).toEqual([]);
      for (const id of [closed, noHeader]) expect(await cliDeliveries(id)).toEqual([{ status: 'skipped', errors: FILTERED_BY_SESSION }]);
      expect(await cliDeliveries(match)).toEqual([{ status: 'success', errors: null }]);
      expect(local.received.map((r) => r.body)).toEqual(['{"action":"opened","n":1}']);
      const screen = term.screen('filtered');
      for (const id of [closed, noHeader, otherType]) expect(screen).not.toContain(id);
      await quit('filtered');

      // The same listen without filters reuses the destination and forwards everything again.
      const again = new Date();
      term.run('unfiltered', ['listen', String(local.port), source.slug], env());
      await term.waitFor('unfiltered', /Ready! Forwarding/);
      await waitConnected(again);
      expect(term.screen('unfiltered')).not.toContain('only events where');
      const any = await ingest('{"action":"closed"}', 'issues');
      await waitForwarded('unfiltered', 'issues', any);
      await quit('unfiltered');
    } finally {
      await local.close();
    }
  });

  it('c changes --event-type and --filter of the running session: errors said in place, Esc keeps the old ones, the next event follows the new ones', async () => {
    const local = await receiver();
    try {
      const since = new Date();
      term.run('menu', ['listen', String(local.port), source.slug], env());
      await term.waitFor('menu', /Ready! Forwarding/);
      await waitConnected(since);
      const before = await ingest('{"action":"closed","n":1}', 'push');
      await term.waitFor('menu', new RegExp(`201\\s+\\d+ ms\\s+${before}`));

      // 6: filters, one per line. One the CLI cannot read and one the API refuses are said in place; the good one stays.
      term.keys('menu', 'c');
      await term.waitFor('menu', /5\) event types \[all\] {2}6\) filters \[none\] {3}\(Enter: back, Esc: keep\)\nchoice:\s*$/);
      term.keys('menu', '6', 'Enter');
      await term.waitFor('menu', /filter 1:\s*$/);
      term.keys('menu', 'action eq opened', 'Enter');
      await term.waitFor('menu', /invalid --filter "action eq opened": the field must be "header.<Name>" or "body.<dot.path>", not "action"[^\n]*\nfilter 1:\s*$/);
      term.keys('menu', 'body.ref regex (unclosed', 'Enter');
      await term.waitFor('menu', /filter 2:\s*$/);
      term.keys('menu', 'body.action eq opened', 'Enter');
      await term.waitFor('menu', /filter 3:\s*$/);
      term.keys('menu', 'Enter');
      await term.waitFor('menu', /invalid --filter "body.ref regex \(unclosed": invalid regular expression[^\n]*\nfilter 2:\s*$/);
      term.keys('menu', 'Enter');
      await term.waitFor('menu', /> only events where body.action eq "opened" \(filtered on the server: others are not forwarded\)/);

      // 5: event types, as --event-type takes them. The header line shows both.
      term.keys('menu', 'c');
      await term.waitFor('menu', /6\) filters \[body.action eq "opened"\] {3}\(Enter: back, Esc: keep\)\nchoice:\s*$/);
      term.keys('menu', '5', 'Enter');
      await term.waitFor('menu', /event types, comma-separated[^\n]*:\s*$/);
      term.keys('menu', 'push, ping', 'Enter');
      await term.waitFor('menu', /> only events where event type push or ping and body.action eq "opened" \(filtered on the server/);

      // Esc in the middle of a new list keeps the old filters.
      term.keys('menu', 'c');
      await term.waitFor('menu', /5\) event types \[push,ping\] {2}6\) filters \[body.action eq "opened"\][^\n]*\nchoice:\s*$/);
      term.keys('menu', '6', 'Enter');
      await term.waitFor('menu', /filter 1:\s*$/);
      term.keys('menu', 'body.n exists', 'Enter');
      await term.waitFor('menu', /filter 2:\s*$/);
      term.keys('menu', 'Escape');
      await term.waitFor('menu', /\nunchanged\n/);
      const { rows } = await pg.query(`select event_types, cli_session->'filters' as filters from destinations where type = 'cli' and name like $1`, [`%@%:${source.slug}`]);
      expect(rows).toContainEqual({ event_types: ['push', 'ping'], filters: [{ field: 'body.action', operator: 'eq', value: 'opened' }] });

      // No restart: the next events follow the new filters.
      const closed = await ingest('{"action":"closed","n":2}', 'push');
      const otherType = await ingest('{"action":"opened","n":3}', 'issues');
      const match = await ingest('{"action":"opened","n":4}', 'push');
      await waitForwarded('menu', 'push', match);
      expect(await cliDeliveries(closed, 1)).toEqual([{ status: 'skipped', errors: FILTERED_BY_SESSION }]);
      expect(await cliDeliveries(otherType)).toEqual([]);
      expect(local.received.map((r) => r.body)).toEqual(['{"action":"closed","n":1}', '{"action":"opened","n":4}']);
      const screen = term.screen('menu');
      for (const id of [closed, otherType]) expect(screen).not.toContain(id);

      // Clearing both: an empty list of filters and `*` for the types forward every event again.
      term.keys('menu', 'c');
      await term.waitFor('menu', /choice:\s*$/);
      term.keys('menu', '6', 'Enter');
      await term.waitFor('menu', /filter 1:\s*$/);
      term.keys('menu', 'Enter');
      await term.waitFor('menu', /> only events where event type push or ping \(filtered/);
      term.keys('menu', 'c');
      await term.waitFor('menu', /6\) filters \[none\][^\n]*\nchoice:\s*$/);
      term.keys('menu', '5', 'Enter');
      await term.waitFor('menu', /event types, comma-separated[^\n]*:\s*$/);
      term.keys('menu', '*', 'Enter');
      await term.waitFor('menu', /> no event type or filter: every event is forwarded/);
      const any = await ingest('{"action":"closed","n":5}', 'issues');
      await waitForwarded('menu', 'issues', any);
      await quit('menu');
    } finally {
      await local.close();
    }
  });

  it('a filtered event that arrives while the CLI is away is not offered as missed; the matching one is, and f forwards it', async () => {
    const local = await receiver();
    const proxy = await startTcpProxy(Number(new URL(service.baseUrl).port));
    const home = tempConfigHome();
    try {
      const login = runCli(['login', '--api-url', proxy.url], { XDG_CONFIG_HOME: home.home, RELAY_EMAIL: le.user.email, RELAY_PASSWORD: PASSWORD });
      expect(await login.exited).toBe(0);
      const since = new Date();
      term.run('away', ['listen', String(local.port), source.slug, '--filter', 'body.action eq opened'], { XDG_CONFIG_HOME: home.home });
      await term.waitFor('away', /only events where body.action eq "opened"/);
      await waitConnected(since);

      // The network goes away (the API keeps running, and drops the presence row): one matching and one other event meanwhile.
      proxy.block(true);
      proxy.dropAll();
      await term.waitFor('away', /connection lost \(1006[^)]*\): reconnecting…/);
      for (let i = 0; i < 100; i++) {
        const { rows } = await pg.query("select count(*)::int as n from cli_sessions where heartbeat_at > now() - interval '15 seconds'");
        if (rows[0].n === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const other = await ingest('{"action":"closed","away":1}', 'push');
      const missed = await ingest('{"action":"opened","away":2}', 'push');
      // Both end skipped, each for its own reason: the filter first (whether or not a CLI is connected), then "no CLI".
      expect(await cliDeliveries(other, 1)).toEqual([{ status: 'skipped', errors: FILTERED_BY_SESSION }]);
      expect(await cliDeliveries(missed, 1)).toEqual([{ status: 'skipped', errors: NO_CLI_CONNECTED }]);

      proxy.block(false);
      await term.waitFor('away', /reconnected after \d+ s/);
      await term.waitFor('away', /> 1 event arrived while no CLI was listening \(since \d\d:\d\d:\d\d\): press f to forward it\n/);
      term.keys('away', 'f');
      await term.waitFor('away', /forwarding 1 missed event\n/);
      await term.waitFor('away', new RegExp(`201\\s+\\d+ ms\\s+${missed}\\s+\\(replay\\)`));
      // f again: nothing left (the filtered one was never offered).
      term.keys('away', 'f');
      await term.waitFor('away', /no missed events to forward/);
      expect(term.screen('away')).not.toContain(other);
      expect(local.received.map((r) => r.body)).toEqual(['{"action":"opened","away":2}']);
      await quit('away');
    } finally {
      await proxy.close();
      await local.close();
      home.cleanup();
    }
  });

  it('↑/↓ select a line, d shows its request and response, o opens it in the dashboard; --output json lines carry the same detail', async () => {
    const local = await receiver();
    // xdg-open (where installed) hands the URL to $BROWSER: this one writes it down.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-browser-'));
    const opened = path.join(dir, 'opened.txt');
    fs.writeFileSync(path.join(dir, 'browser.sh'), `#!/bin/sh\necho "$1" >> ${opened}\n`, { mode: 0o755 });
    try {
      const since = new Date();
      term.run('inspect', ['listen', String(local.port), source.slug], { ...env(), BROWSER: path.join(dir, 'browser.sh') });
      await term.waitFor('inspect', /Ready! Forwarding/);
      await waitConnected(since);
      const first = await ingest('{"n":1}', 'push', { 'X-Trace': 'first' });
      await term.waitFor('inspect', new RegExp(`201\\s+\\d+ ms\\s+${first}`));
      const big = JSON.stringify({ n: 2, pad: 'y'.repeat(6000) });
      const second = await ingest(big, 'push');
      await term.waitFor('inspect', new RegExp(`201\\s+\\d+ ms\\s+${second}`));

      term.keys('inspect', 'd'); // nothing selected yet: the newest line
      const [newest] = await term.waitFor('inspect', new RegExp(`── event ${second}  push from ${source.slug}, attempt 1 ──[\\s\\S]*?\\n──\\n`));
      // Both bodies are longer than 4 KiB: each is cut there.
      expect(newest.split('… (first 4096 bytes shown)')).toHaveLength(3);
      expect(newest).toContain('\n  response  201\n');
      term.keys('inspect', 'Up');
      await term.waitFor('inspect', new RegExp(`▸ 1/2 .*${first}.*\\(d detail, o open\\)`));
      term.keys('inspect', 'd');
      const [detail] = await term.waitFor('inspect', new RegExp(`── event ${first}  push from ${source.slug}, attempt 1 ──[\\s\\S]*?\\n──\\n`));
      expect(detail).toContain(`  request  POST http://localhost:${local.port}/`);
      expect(detail).toMatch(/\n {4}x-trace: first\n/);
      expect(detail).toMatch(/\n {4}x-forwarded-host: \S+\n/);
      expect(detail).toMatch(/\n {4}x-\w+-signature: sha256=[0-9a-f]{64}\n/);
      expect(detail).toContain('\n    {"n":1}\n  response  201\n');
      expect(detail).toMatch(/\n {4}x-local: yes\n/);
      expect(detail).toContain('    {"got":7,"pad":"zzz');
      term.keys('inspect', 'Down');
      await term.waitFor('inspect', new RegExp(`▸ 2/2 .*${second}`));
      term.keys('inspect', 'Up', 'o');
      const url = `${service.baseUrl}/events/${first}`;
      await term.waitFor('inspect', new RegExp(`> opening ${url.replace(/[.]/g, '\\.')}\\n`));
      if (hasXdgOpen()) {
        for (let i = 0; i < 100 && !fs.existsSync(opened); i++) await new Promise((r) => setTimeout(r, 100));
        expect(fs.readFileSync(opened, 'utf8').trim()).toBe(url);
      }
      // r, p, h still work beside them.
      term.keys('inspect', 'h');
      await term.waitFor('inspect', /d {2}request and response of the selected event/);
      await quit('inspect');

      const json = runCli(['listen', String(local.port), source.slug, '--output', 'json'], env());
      try {
        await json.waitFor(/Ready! Forwarding/);
        const third = await ingest(big, 'push', { 'X-Trace': 'third' });
        const [text] = await json.waitFor(new RegExp(`\\{"type":"forward".*"event_id":"${third}".*\\}\\n`), 30_000);
        const line = JSON.parse(text);
        expect(line).toMatchObject({
          status: 201,
          request: { method: 'POST', url: `http://localhost:${local.port}/`, body_truncated: true, headers: { 'x-trace': 'third', 'content-type': 'application/json' } },
          response: { status: 201, headers: { 'x-local': 'yes' }, body_truncated: true, error: null },
        });
        expect(Buffer.byteLength(line.request.body)).toBe(4096);
        expect(big.startsWith(line.request.body)).toBe(true);
        expect(line.response.body).toMatch(/^\{"got":6\d{3},"pad":"z+$/);
      } finally {
        expect(await json.stop()).toBe(0);
      }
    } finally {
      await local.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

function hasXdgOpen(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v xdg-open'], { stdio: 'ignore' });
    return process.platform === 'linux';
  } catch {
    return false;
  }
}
