import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { uuidv7 } from '../src/common/ids';
import { SecretBox } from '../src/common/secret-box';
import { createOrm, migrate } from '../src/db/orm';
import { pgClientConfig } from '../src/db/pg-connection';
import { startEmbeddedPostgres } from '../src/launcher/postgres';
import { freePort } from '../test/support/free-port';
import { startCpuSampler } from './cpu-sampler';
import { realisticBody, sizedBody } from './webhook-bodies';
import { SERVICE_NODE_FLAGS } from '../src/launcher/node-flags';
import { USER_PATH_DEFAULTS, type UserPathFigures, runUserPath } from './user-path';
import { writeBenchSection } from './bench-output';

/**
 * `npm run bench:ingress [-- --duration 15 --connections 128 --payload-bytes 512 --plan growth --integration --bad-signature --profile DIR]`
 *
 * Starts the real service (`relay api`) as its own process on PostgreSQL
 * (embedded, or DATABASE_URL), creates one endpoint, and drives signed
 * `POST /hooks/:slug` requests at it from a separate load process
 * (autocannon, 127.0.0.1 only) for a fixed time with a bounded number of
 * connections. Then counts the stored rows (every 202 must be a committed
 * row) and reads the service's /metrics to show where the time went.
 * Writes bench/results/ingress.json and the `## Ingress` section of docs/benchmarks.md.
 */
const REPO = path.resolve(__dirname, '..');
const RESULTS = path.join(REPO, 'bench', 'results', 'ingress.json');

interface Options {
  duration: number;
  connections: number;
  payloadBytes: number;
  plan: 'free' | 'team' | 'growth';
  integration: boolean;
  /** Sign with a wrong secret: every request is answered 401 before the store, which measures HTTP + auth alone. */
  badSignature: boolean;
  /** Directory for a V8 CPU profile of the service process (`--cpu-prof`). */
  profileDir?: string;
  /** The headline row first: the ingest phase of the user path (bench/user-path.ts); `--no-user-path` leaves it out. */
  userPath: boolean;
}

function parseArgs(args: string[]): Options {
  const get = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  return {
    duration: Number(get('duration') ?? 15),
    connections: Number(get('connections') ?? 128),
    payloadBytes: Number(get('payload-bytes') ?? 512),
    plan: (get('plan') as Options['plan']) ?? 'growth',
    integration: args.includes('--integration'),
    badSignature: args.includes('--bad-signature'),
    profileDir: get('profile'),
    userPath: !args.includes('--no-user-path') && !args.includes('--bad-signature'),
  };
}


/** Distinct bodies, each signed once up front, so the load process spends its CPU on sending. */
function signedBodies(secret: string, payloadBytes: number, exact = false, count = 512): Array<{ body: string; signature: string }> {
  return Array.from({ length: count }, (_, i) => {
    const body = exact ? sizedBody(i, payloadBytes) : realisticBody(i, payloadBytes);
    return { body, signature: `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` };
  });
}

/** The load process: `relay bench ingress --load <json>`; prints autocannon's result as JSON. */
export async function runLoad(spec: { url: string; secret: string; duration: number; connections: number; payloadBytes: number; exactBytes?: boolean }): Promise<void> {
  const bodies = signedBodies(spec.secret, spec.payloadBytes, spec.exactBytes);
  let next = 0;
  const result = await autocannon({
    url: spec.url,
    method: 'POST',
    connections: spec.connections,
    duration: spec.duration,
    headers: { 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req) => {
          const b = bodies[next++ % bodies.length];
          return { ...req, body: b.body, headers: { ...req.headers, 'content-type': 'application/json', 'x-hub-signature-256': b.signature } };
        },
      },
    ],
  });
  process.stdout.write(JSON.stringify(result));
}

async function scrape(baseUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+(?:\{[^}]*\})?) ([0-9.e+-]+)$/.exec(line);
    if (m) values.set(m[1], Number(m[2]));
  }
  return values;
}

function waitForExit(child: ChildProcess): Promise<string> {
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`load process exited with ${code}`)))),
  );
}

export async function main(args: string[]): Promise<void> {
  const loadIndex = args.indexOf('--load');
  if (loadIndex >= 0) return runLoad(JSON.parse(args[loadIndex + 1]));
  const opts = parseArgs(args);
  // The headline: the same load against `npm start`, with fan-out, search rows and deliveries running.
  const userPath = opts.userPath
    ? (await runUserPath({ ...USER_PATH_DEFAULTS, repo: REPO, phases: ['ingest'] }, (line) => process.stderr.write(`${line}\n`))).ingest
    : undefined;
  const stops: Array<() => Promise<unknown> | void> = [];
  try {
    let databaseUrl = process.env.DATABASE_URL;
    if (!databaseUrl) {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-bench-'));
      fs.chmodSync(dataDir, 0o755);
      const pg = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pg'), port: await freePort() });
      stops.push(() => fs.rmSync(dataDir, { recursive: true, force: true }), () => pg.stop());
      databaseUrl = pg.url;
    }
    const orm = await createOrm(databaseUrl);
    await migrate(orm);
    await orm.close();

    const keys = `bench:${randomBytes(32).toString('base64')}`;
    const box = new SecretBox([{ id: 'bench', key: Buffer.from(keys.split(':')[1], 'base64') }]);
    const secret = `whsec_${randomBytes(24).toString('hex')}`;
    const slug = `bench-${randomBytes(4).toString('hex')}`;
    const db = new Client(pgClientConfig(databaseUrl));
    await db.connect();
    stops.push(() => db.end());
    const [org, user, project, endpoint] = [uuidv7(), uuidv7(), uuidv7(), uuidv7()];
    await db.query('insert into organizations (id, name, plan) values ($1, $2, $3)', [org, 'Bench', opts.plan]);
    await db.query('insert into users (id, email) values ($1, $2)', [user, `bench-${slug}@example.test`]);
    await db.query('insert into projects (id, organization_id, user_id, name, slug) values ($1, $2, $3, $4, $5)', [project, org, user, 'Bench', slug]);
    await db.query('insert into webhook_endpoints (id, project_id, name, slug, signing_secret_enc, is_integration) values ($1, $2, $3, $4, $5, $6)', [
      endpoint, project, 'Bench', slug, box.seal(secret), opts.integration,
    ]);

    const port = await freePort();
    const profile = opts.profileDir ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(opts.profileDir)] : [];
    // As `npm run api` starts it (SERVICE_NODE_FLAGS).
    const service = spawn(process.execPath, [...SERVICE_NODE_FLAGS, ...profile, path.join(REPO, 'bin', 'relay.js'), 'api'], {
      cwd: REPO,
      env: {
        ...process.env,
        NODE_ENV: 'development',
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: databaseUrl,
        // Ingress never talks to Temporal; the lazy client is never used.
        TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:1',
        RELAY_ENCRYPTION_KEYS: keys,
        RELAY_JWT_SECRET: randomBytes(32).toString('hex'),
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    stops.push(() => {
      service.kill('SIGINT');
      return new Promise((r) => service.once('exit', r));
    });
    const baseUrl = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      if (service.exitCode !== null) throw new Error('service exited');
      if (await fetch(`${baseUrl}/healthz`).then((r) => r.ok, () => false)) break;
      if (i > 300) throw new Error('service did not start');
      await new Promise((r) => setTimeout(r, 100));
    }

    const url = `${baseUrl}/hooks/${slug}`;
    // Warm-up: JIT, endpoint cache, pool connections.
    const warm = spawn(process.execPath, [path.join(REPO, 'bin', 'relay.js'), 'bench', 'ingress', '--load', JSON.stringify({ url, secret, duration: 3, connections: opts.connections, payloadBytes: opts.payloadBytes })], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
    await waitForExit(warm);
    const before = await scrape(baseUrl);
    const { rows: [{ n: rowsBefore }] } = await db.query('select count(*)::int as n from events where endpoint_id = $1', [endpoint]);

    const loadBefore = os.loadavg()[0];
    process.stderr.write(`ingress bench: ${opts.duration} s, ${opts.connections} connections, ${opts.payloadBytes}-byte bodies, plan ${opts.plan}\n`);
    const loadSecret = opts.badSignature ? 'not-the-endpoint-secret' : secret;
    // CPU by process tree over the measured span: per event, it shows a cost the machine's load hides in the rate.
    const cpu = startCpuSampler((pid, comm) => (pid === service.pid ? 'service' : comm === 'postgres' ? 'postgres' : 'load'));
    const load = spawn(process.execPath, [path.join(REPO, 'bin', 'relay.js'), 'bench', 'ingress', '--load', JSON.stringify({ url, secret: loadSecret, duration: opts.duration, connections: opts.connections, payloadBytes: opts.payloadBytes })], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
    const result = JSON.parse(await waitForExit(load)) as autocannon.Result;
    const cpuUse = cpu();
    const after = await scrape(baseUrl);
    const { rows: [{ n: rowsAfter }] } = await db.query('select count(*)::int as n from events where endpoint_id = $1', [endpoint]);

    const delta = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    const commits = delta('relay_ingress_commit_seconds_count');
    const accepted = result['2xx'];
    const figures = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, load_average_1m_before: loadBefore, load_average_1m_after: os.loadavg()[0] },
      options: opts,
      user_path: userPath,
      events_per_second: Math.round(accepted / result.duration),
      requests_per_second_avg: result.requests.average,
      latency_ms: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
      responses: { '2xx': accepted, non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts },
      durability: { accepted_202: accepted, rows_committed: rowsAfter - rowsBefore, every_202_is_a_row: rowsAfter - rowsBefore >= accepted },
      group_commit: {
        commits,
        commits_per_second: Math.round(commits / result.duration),
        mean_batch_rows: commits ? Math.round((delta('relay_ingress_commit_batch_size_sum') / commits) * 10) / 10 : 0,
        mean_commit_ms: commits ? Math.round((delta('relay_ingress_commit_seconds_sum') / commits) * 1e4) / 10 : 0,
      },
      service_cpu_seconds_per_second: Math.round((delta('relay_process_cpu_seconds_total') / result.duration) * 100) / 100,
      /** CPU milliseconds per accepted event: the relay's API process and PostgreSQL (all its backends). */
      cpu_ms_per_event: Object.fromEntries(
        (['service', 'postgres'] as const).map((k) => [k, Math.round(((cpuUse.percent_of_one_core[k] ?? 0) * cpuUse.seconds * 10) / Math.max(1, accepted) * 1000) / 1000]),
      ),
    };
    fs.mkdirSync(path.dirname(RESULTS), { recursive: true });
    if (opts.badSignature) {
      // A diagnostic run: printed, not recorded as the ingress result.
      process.stdout.write(JSON.stringify(figures, null, 2) + '\n');
      return;
    }
    fs.writeFileSync(RESULTS, JSON.stringify(figures, null, 2) + '\n');
    writeDocSection(figures);
    process.stdout.write(JSON.stringify(figures, null, 2) + '\n');
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

function writeDocSection(f: {
  date: string; machine: { cpus: number; model?: string; node: string; load_average_1m_before: number; load_average_1m_after: number }; options: Options; events_per_second: number;
  latency_ms: { p50: number; p90: number; p99: number; max: number }; responses: Record<string, number>;
  durability: { accepted_202: number; rows_committed: number }; group_commit: { commits_per_second: number; mean_batch_rows: number; mean_commit_ms: number };
  service_cpu_seconds_per_second: number; cpu_ms_per_event: Record<string, number>; user_path?: UserPathFigures['ingest'];
}): void {
  const u = f.user_path;
  const section = [
    '## Ingress (`npm run bench:ingress`)',
    '',
    `\`npm run bench:ingress\`, last run ${f.date.slice(0, 16).replace('T', ' ')} UTC on ${f.machine.cpus} cores (${f.machine.model ?? 'unknown CPU'}), Node ${f.machine.node}.`,
    `Machine load average (1 min) before/after: ${f.machine.load_average_1m_before.toFixed(1)} / ${f.machine.load_average_1m_after.toFixed(1)} (other processes share the machine).`,
    `The service (\`relay api\`) and the load generator (autocannon, ${f.options.connections} connections, ${f.options.duration} s, ${f.options.payloadBytes}-byte signed push-like bodies: nested objects, hex ids, commit messages) run as separate processes on the same machine, with PostgreSQL (fsync on, synchronous_commit on).`,
    '',
    '| configuration | events/s (durable 202s) | p50 | p90 | p99 | max | non-2xx | errors | CPU ms per event: relay / PostgreSQL |',
    '|---|---|---|---|---|---|---|---|---|',
    ...(u
      ? [
          `| **as users run it**: \`npm start\` (${USER_PATH_DEFAULTS.connections} connections, ${USER_PATH_DEFAULTS.duration} s, ~${u.body_bytes}-byte bodies; fan-out, search rows and deliveries running) | **${u.events_per_second}** | ${u.latency_ms.p50} ms | ${u.latency_ms.p90} ms | **${u.latency_ms.p99} ms** | ${u.latency_ms.max} ms | ${u.non_2xx} | ${u.errors} | ${u.cpu_until_fanned_out.ms_per_unit.relay} / ${u.cpu_until_fanned_out.ms_per_unit.postgres} (until fanned out; Temporal ${u.cpu_until_fanned_out.ms_per_unit.temporal}) |`,
        ]
      : []),
    `| component: \`relay api\` alone (no dispatcher: no fan-out, no search rows, no deliveries) | ${f.events_per_second} | ${f.latency_ms.p50} ms | ${f.latency_ms.p90} ms | ${f.latency_ms.p99} ms | ${f.latency_ms.max} ms | ${f.responses.non2xx} | ${f.responses.errors} | ${f.cpu_ms_per_event.service} / ${f.cpu_ms_per_event.postgres} |`,
    '',
    `Component run: ${f.durability.accepted_202} 202s, ${f.durability.rows_committed} committed rows.`,
    `Group commit: ${f.group_commit.commits_per_second} commits/s, ${f.group_commit.mean_batch_rows} rows per commit on average, ${f.group_commit.mean_commit_ms} ms per commit. The service process used ${f.service_cpu_seconds_per_second} CPU-seconds per second.`,
    `CPU per accepted event (less sensitive to the machine's load than the rate): the service ${f.cpu_ms_per_event.service} ms, PostgreSQL ${f.cpu_ms_per_event.postgres} ms.`,
    '',
    'Where the time goes: docs/internals/benchmark-methods.md ("Ingress").',
  ].join('\n');
  writeBenchSection('ingress', section);
}
