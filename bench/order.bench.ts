import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { SERVICE_NODE_FLAGS } from '../src/launcher/node-flags';
import { freePort } from '../test/support/free-port';
import { runStops, saveFigures, writeBenchSection } from './bench-output';
import { waitReady } from './bench-stack';

/**
 * Order and its price (docs/delivery.md "Order"): `relay start` as a user runs it (fresh data
 * directory), one receiver, and for each `max_concurrency` setting its own source and webhook
 * destination. Each run sends `--events` signed events to its source one after another (each
 * request waits for its 202), the body numbering them, and measures at the receiver: deliveries per
 * second (first request sent → last event received), whether they arrived in the order sent, and
 * how many arrived after a later-sent one.
 *
 *   npm run bench:order [-- --events 500 --receiver-ms 0]
 */
const REPO = path.resolve(__dirname, '..');
const RESULTS = path.join(REPO, 'bench', 'results', 'order.json');
const SETTINGS: Array<{ name: string; maxConcurrency: number | null }> = [
  { name: 'default (max_concurrency unset: 10)', maxConcurrency: null },
  { name: 'max_concurrency: 1', maxConcurrency: 1 },
];

const option = (args: string[], name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};

export async function main(args: string[]): Promise<void> {
  const events = option(args, '--events', 500);
  const receiverMs = option(args, '--receiver-ms', 0);
  if (!(events >= 10 && events <= 10_000)) throw new Error('--events must be between 10 and 10000');
  const stops: Array<() => Promise<unknown> | unknown> = [];
  try {
    // The receiver: records which event (its body's `seq`) arrived, per destination path, and when.
    const arrivals = new Map<string, Array<{ seq: number; at: number }>>();
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const list = arrivals.get(req.url ?? '') ?? [];
        list.push({ seq: (JSON.parse(body) as { seq: number }).seq, at: performance.now() });
        arrivals.set(req.url ?? '', list);
        setTimeout(() => res.end('ok'), receiverMs);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    stops.push(() => new Promise((r) => receiver.close(r)));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;

    // The service, as `npm start` runs it.
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-bench-order-'));
    stops.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const { DATABASE_URL: _d, TEMPORAL_ADDRESS: _t, ...inherited } = process.env;
    const env = { ...inherited, NODE_ENV: 'development', LOG_LEVEL: 'warn', RELAY_DATA_DIR: dataDir, PORT: String(port), RELAY_PG_PORT: String(await freePort()), RELAY_TEMPORAL_PORT: String(await freePort()), RELAY_TEMPORAL_UI_PORT: String(await freePort()) };
    const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, path.join(REPO, 'bin', 'relay.js'), 'start'], { cwd: REPO, env, stdio: ['ignore', 'ignore', 'inherit'] });
    stops.push(() => {
      if (child.exitCode !== null) return undefined;
      child.kill('SIGINT');
      return new Promise((r) => child.once('exit', r));
    });
    const base = `http://127.0.0.1:${port}`;
    await waitReady(base, child, 'relay start');

    let token = '';
    const api = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${base}${url}`, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
      return text ? (JSON.parse(text) as Record<string, any>) : {};
    };
    token = (await api('POST', '/v1/auth/signup', { email: 'order@example.test', password: 'order bench password' })).access_token;
    // The growth plan's ingress caps (600/s per source), so that sending as fast as ingress answers is never refused.
    const organization = (await api('GET', '/v1/organizations')).data[0].id as string;
    await api('PUT', `/v1/organizations/${organization}/plan`, { plan: 'growth' });

    const loadAtStart = Number(os.loadavg()[0].toFixed(1));
    const runs = [];
    for (const setting of SETTINGS) {
      const pathName = `/${setting.maxConcurrency ?? 'default'}`;
      const source = await api('POST', '/v1/endpoints', { name: setting.name });
      const destination = await api('POST', '/v1/destinations', { name: setting.name, type: 'webhook', webhook_url: `${receiverUrl}${pathName}`, max_concurrency: setting.maxConcurrency, signing_secret: null });
      await api('POST', `/v1/endpoints/${source.id}/destinations`, { destination_id: destination.id });
      const load = Number(os.loadavg()[0].toFixed(1));
      const began = performance.now();
      for (let seq = 0; seq < events; seq++) {
        const body = JSON.stringify({ seq });
        const signature = createHmac('sha256', source.signing_secret as string).update(body).digest('hex');
        const res = await fetch(`${base}/hooks/${source.slug}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${signature}` }, body });
        if (res.status !== 202) throw new Error(`ingress answered ${res.status}: ${await res.text()}`);
      }
      const sent = performance.now();
      const deadline = Date.now() + 30 * 60_000;
      while ((arrivals.get(pathName)?.length ?? 0) < events && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const got = arrivals.get(pathName) ?? [];
      const last = got.at(-1)?.at ?? performance.now();
      let highest = -1;
      let late = 0;
      for (const { seq } of got) {
        if (seq < highest) late++;
        highest = Math.max(highest, seq);
      }
      runs.push({
        setting: setting.name,
        max_concurrency: setting.maxConcurrency,
        events,
        received: got.length,
        sending_seconds: Number(((sent - began) / 1000).toFixed(1)),
        deliveries_per_second: Number((got.length / ((last - began) / 1000)).toFixed(1)),
        in_order: late === 0 && got.length === events,
        arrived_after_a_later_event: late,
        load_average_1m_at_start: load,
      });
    }
    const figures = { date: new Date().toISOString(), machine: { cpus: os.cpus().length, node: process.version }, receiver_ms: receiverMs, load_average_1m: { start: loadAtStart, end: Number(os.loadavg()[0].toFixed(1)) }, runs };
    saveFigures(RESULTS, figures);
    writeBenchSection(
      'order',
      [
        '## Order and its price (`npm run bench:order`)',
        '',
        `\`relay start\` on a fresh data directory; for each setting its own source and webhook destination to one local receiver (answering ${receiverMs ? `after ${receiverMs} ms` : 'at once'}); ${events} signed events sent to the source one after another (each request waits for its 202), the body numbering them. Deliveries per second: first request sent → last event at the receiver. ${figures.machine.cpus} cores, Node ${figures.machine.node}, measured ${figures.date.slice(0, 10)}, 1-minute load average ${figures.load_average_1m.start} → ${figures.load_average_1m.end} (other work shares the machine).`,
        '',
        '| destination | events received | deliveries/s | in the order sent | arrived after a later-sent event | load (1 min) at its start |',
        '|---|---|---|---|---|---|',
        ...runs.map((r) => `| ${r.setting} | ${r.received} / ${r.events} | ${r.deliveries_per_second} | ${r.in_order ? 'yes' : 'no'} | ${r.arrived_after_a_later_event} | ${r.load_average_1m_at_start} |`),
      ].join('\n'),
    );
  } finally {
    await runStops(stops, (err) => process.stderr.write(`order bench cleanup: ${String(err)}\n`));
  }
}
