import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { issueAccessToken } from '../src/auth/tokens';
import { uuidv7 } from '../src/common/ids';
import { textCondition } from '../src/events/event-search';
import { createOrm, migrate } from '../src/db/orm';
import { pgClientConfig } from '../src/db/pg-connection';
import { freePort } from '../test/support/free-port';
import { startBenchPostgres } from './bench-database';
import { runStops, saveFigures, writeBenchSection } from './bench-output';

/**
 * `npm run bench:search [-- --events 1000000 --runs 20]`
 *
 * Events search (docs/api.md "Searching events") on a large project: loads
 * `--events` events into one project of an embedded PostgreSQL with
 * `INSERT … SELECT generate_series` (three payload shapes, GitHub-like
 * headers, a few rare values), starts `relay api` on it and times
 * `GET /v1/events` with selective and unselective searches (`--runs` each,
 * p50/p95 of the whole HTTP request). Then the text-index choice: index sizes
 * and build times of the full-text index in use and of a pg_trgm one, the
 * same text searches over each in SQL, and what each costs an ingress INSERT
 * (20,000 realistic rows in batches of 40, ingress's unnest INSERT).
 * Writes bench/results/search.json and the `## Search` section of docs/benchmarks.md.
 */
const REPO = path.resolve(__dirname, '..');
const RESULTS = path.join(REPO, 'bench', 'results', 'search.json');

function arg(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
}

/** One row per `g`: a push (GitHub-like), an order (payments-like) or an issue; 1 in 100,000 pushes is to repository "relay". */
const EVENT_ROWS = `
  select uuidv7() as id, $1::uuid as endpoint_id, $2::uuid as project_id, $3::uuid as organization_id,
         case g % 3 when 0 then 'push' when 1 then 'order.created' else 'issues' end as event_type,
         case g % 3
           when 0 then json_build_object('ref', 'refs/heads/main',
             'repository', json_build_object('id', g % 5000, 'name', case when g % 100000 = 0 then 'relay' else 'repo-' || (g % 5000) end, 'full_name', 'acme/repo-' || (g % 5000)),
             'pusher', json_build_object('name', 'user' || (g % 20000), 'email', 'user' || (g % 20000) || '@example.com'),
             'head_commit', json_build_object('id', md5(g::text) || substr(md5((g + 1)::text), 1, 8), 'message', 'Fix flaky test in module ' || (g % 700) || ' (#' || g || ')'))
           when 1 then json_build_object('type', 'order.created', 'livemode', true,
             'data', json_build_object('id', 'ord_' || g, 'amount', g % 10000, 'currency', 'usd',
               'customer', json_build_object('id', 'cus_' || (g % 50000), 'email', 'customer' || (g % 50000) || '@shop.example')))
           else json_build_object('action', 'opened',
             'issue', json_build_object('number', g, 'title', 'Crash when saving ' || md5(g::text), 'labels', json_build_array(json_build_object('name', case when g % 10 = 2 then 'bug' else 'feature' end))),
             'repository', json_build_object('name', 'repo-' || (g % 5000)))
         end as payload,
         json_build_object('content-type', 'application/json', 'user-agent', case when g % 3 = 1 then 'Stripe/1.0' else 'GitHub-Hookshot/' || substr(md5(g::text), 1, 7) end,
           'x-request-id', gen_random_uuid()::text, 'x-signature-256', 'sha256=' || md5(g::text) || md5((g * 7)::text)) as headers,
         'received' as status, now() as dispatched_at
    from generate_series($4::int, $5::int) g`;

interface Case {
  name: string;
  kind: 'contains' | 'q';
  selective: boolean;
  /** The query string for the i-th run. */
  params: (i: number, events: number) => Record<string, string>;
}

/** Selective: a handful of rows match; unselective: a third of the project or more matches. */
const CASES: Case[] = [
  { name: 'contains one order id (1 row)', kind: 'contains', selective: true, params: (i, n) => ({ contains: JSON.stringify({ data: { id: `ord_${pick(i, n, 1)}` } }) }) },
  { name: 'contains repository "relay" (1 in 300,000)', kind: 'contains', selective: true, params: () => ({ contains: '{"repository":{"name":"relay"}}' }) },
  { name: 'contains a customer id (≈7 rows)', kind: 'contains', selective: true, params: (i) => ({ contains: JSON.stringify({ data: { customer: { id: `cus_${(i * 7919) % 50000}` } } }) }) },
  { name: 'contains order.created (1/3 of rows)', kind: 'contains', selective: false, params: () => ({ contains: '{"type":"order.created"}' }) },
  { name: 'contains label bug (1/30 of rows)', kind: 'contains', selective: false, params: () => ({ contains: '{"issue":{"labels":[{"name":"bug"}]}}' }) },
  { name: 'q a commit sha prefix (1 row)', kind: 'q', selective: true, params: (i, n) => ({ q: md5Of(pick(i, n, 0)).slice(0, 12) }) },
  { name: 'q a customer email (≈7 rows)', kind: 'q', selective: true, params: (i) => ({ q: `customer${(i * 7919) % 50000}@shop.example` }) },
  { name: 'q a header value, user-agent build (1 row)', kind: 'q', selective: true, params: (i, n) => ({ q: `hookshot/${md5Of(pick(i, n, 0)).slice(0, 7)}` }) },
  { name: 'q hookshot (2/3 of rows)', kind: 'q', selective: false, params: () => ({ q: 'hookshot' }) },
  { name: 'q "refs/heads/main" (1/3 of rows)', kind: 'q', selective: false, params: () => ({ q: 'refs/heads/main' }) },
];

/** A row number `g` with g % 3 = `shape`, spread over the table. */
function pick(i: number, events: number, shape: number): number {
  const g = Math.floor(((i * 104729) % events) / 3) * 3 + shape;
  return g === 0 ? 3 + shape : g;
}

function md5Of(g: number): string {
  return createHash('md5').update(String(g)).digest('hex');
}

function percentile(sorted: number[], p: number): number {
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] * 10) / 10;
}

/** `run` answers the rows on the page, or TIMED_OUT (the search hit its statement timeout). */
const TIMED_OUT = -1;

async function timeRuns(runs: number, run: (i: number) => Promise<number>): Promise<{ p50_ms: number; p95_ms: number; matched_first_page: number; timed_out: number }> {
  await run(runs); // warm-up, not counted
  const times: number[] = [];
  let matched = 0;
  let timedOut = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const rows = await run(i);
    times.push(performance.now() - t0);
    if (rows === TIMED_OUT) timedOut++;
    else matched = rows;
  }
  times.sort((a, b) => a - b);
  return { p50_ms: percentile(times, 0.5), p95_ms: percentile(times, 0.95), matched_first_page: matched, timed_out: timedOut };
}

async function ingestCost(db: Client, rows = 20_000, batch = 40): Promise<Record<string, number>> {
  const body = () => JSON.stringify({ action: 'opened', repository: { name: `repo-${randomBytes(3).toString('hex')}`, owner: { login: 'acme' } }, sender: { login: `user${Math.floor(Math.random() * 1e5)}` }, head_commit: { id: randomBytes(20).toString('hex'), message: `Fix ${randomBytes(8).toString('hex')}` }, pad: randomBytes(60).toString('hex') });
  const headers = () => JSON.stringify({ 'content-type': 'application/json', 'user-agent': `GitHub-Hookshot/${randomBytes(4).toString('hex')}`, 'x-github-delivery': randomUUID(), 'x-hub-signature-256': `sha256=${randomBytes(32).toString('hex')}` });
  const variants: Record<string, string[]> = {
    no_search_index: [],
    expression_indexes_on_events: [
      'create index on %t using gin (relay_event_payload_jsonb(payload) jsonb_path_ops)',
      'create index on %t using gin (relay_event_search_vector(payload, headers))',
    ],
    jsonb_plus_pg_trgm_instead: [
      'create index on %t using gin (relay_event_payload_jsonb(payload) jsonb_path_ops)',
      'create index on %t using gin (relay_event_search_text(payload, headers) gin_trgm_ops)',
    ],
  };
  const out: Record<string, number> = {};
  for (const [name, indexes] of Object.entries(variants)) {
    const table = `bench_ingest_${name}`;
    await db.query(`create table ${table} (like events including defaults)`);
    await db.query(`alter table ${table} add primary key (id)`);
    for (const ddl of indexes) await db.query(ddl.replace('%t', table));
    const t0 = performance.now();
    for (let b = 0; b < rows / batch; b++) {
      const ids = Array.from({ length: batch }, () => uuidv7());
      const ep = randomUUID();
      await db.query(
        `insert into ${table} (id, endpoint_id, project_id, organization_id, event_type, payload, headers, status)
         select * from unnest($1::uuid[], $2::uuid[], $2::uuid[], $2::uuid[], $3::text[], $4::json[], $5::json[], $6::text[])`,
        [ids, ids.map(() => ep), ids.map(() => 'push'), ids.map(body), ids.map(headers), ids.map(() => 'received')],
      );
    }
    out[name] = Math.round(rows / ((performance.now() - t0) / 1000));
    if (name === 'no_search_index') {
      // What the outbox fan-out now pays instead: the search rows of these events, in its batches of 500.
      await db.query(`create table bench_event_search (like event_search including all)`);
      const { rows: ids } = await db.query<{ id: string }>(`select id from ${table} order by id`);
      const t1 = performance.now();
      for (let b = 0; b < ids.length; b += 500) {
        await db.query(
          `insert into bench_event_search (event_id, doc, words)
           select id, relay_event_payload_jsonb(payload), relay_event_search_vector(payload, headers) from ${table} where id = any($1::uuid[])`,
          [ids.slice(b, b + 500).map((r) => r.id)],
        );
      }
      out.search_rows_at_fan_out = Math.round(ids.length / ((performance.now() - t1) / 1000));
      await db.query('drop table bench_event_search');
    }
    await db.query(`drop table ${table}`);
  }
  return out;
}

export async function main(args: string[]): Promise<void> {
  const events = arg(args, 'events', 1_000_000);
  const runs = arg(args, 'runs', 20);
  const stops: Array<() => Promise<unknown> | unknown> = [];
  const log = (msg: string) => process.stderr.write(`search bench: ${msg}\n`);
  try {
    const { url: databaseUrl } = await startBenchPostgres('search', stops);
    const orm = await createOrm(databaseUrl);
    await migrate(orm);
    await orm.close();
    const db = new Client(pgClientConfig(databaseUrl));
    await db.connect();
    stops.push(() => db.end());
    await db.query('create extension if not exists pg_trgm');

    const loadBefore = os.loadavg()[0];
    log('ingest cost of each index choice (20,000 rows each)…');
    const ingest = await ingestCost(db);
    log(JSON.stringify(ingest));

    const [org, user, project, endpoint] = [uuidv7(), uuidv7(), uuidv7(), uuidv7()];
    await db.query('insert into organizations (id, name, plan) values ($1, $2, $3)', [org, 'Bench', 'growth']);
    await db.query('insert into users (id, email) values ($1, $2)', [user, `bench-search-${randomBytes(4).toString('hex')}@example.test`]);
    await db.query(`insert into organization_members (id, organization_id, user_id, role) values ($1, $2, $3, 'owner')`, [uuidv7(), org, user]);
    await db.query('insert into projects (id, organization_id, user_id, name, slug) values ($1, $2, $3, $4, $5)', [project, org, user, 'Bench', 'bench']);
    await db.query(`insert into webhook_endpoints (id, project_id, name, slug, signing_secret_enc) values ($1, $2, 'Bench', 'bench-search', 'unused')`, [endpoint, project]);

    // Load, write the search rows without their indexes, then build them (what a migration over existing rows does).
    const { rows: searchIndexes } = await db.query<{ name: string; def: string }>(
      `select indexname as name, indexdef as def from pg_indexes where tablename = 'event_search' and indexname in ('event_search_doc_idx', 'event_search_words_idx')`,
    );
    for (const ix of searchIndexes) await db.query(`drop index ${ix.name}`);
    let t0 = performance.now();
    for (let from = 1; from <= events; from += 100_000) {
      await db.query(`insert into events (id, endpoint_id, project_id, organization_id, event_type, payload, headers, status, dispatched_at) ${EVENT_ROWS}`, [
        endpoint, project, org, from, Math.min(events, from + 99_999),
      ]);
      log(`loaded ${Math.min(events, from + 99_999)} events`);
    }
    const loadSeconds = (performance.now() - t0) / 1000;
    t0 = performance.now();
    await db.query(`insert into event_search (event_id, doc, words) select id, relay_event_payload_jsonb(payload), relay_event_search_vector(payload, headers) from events`);
    const searchRowsSeconds = (performance.now() - t0) / 1000;
    log(`wrote the search rows in ${Math.round(searchRowsSeconds)} s`);
    const buildSeconds: Record<string, number> = {};
    for (const ix of searchIndexes) {
      t0 = performance.now();
      await db.query(ix.def);
      buildSeconds[ix.name] = Math.round((performance.now() - t0) / 100) / 10;
      log(`built ${ix.name} in ${buildSeconds[ix.name]} s`);
    }
    await db.query('vacuum analyze events');
    await db.query('vacuum analyze event_search');
    const size = async (name: string) => Number((await db.query(`select pg_relation_size($1::regclass) as n`, [name])).rows[0].n);

    const port = await freePort();
    const jwtSecret = randomBytes(32).toString('hex');
    const service: ChildProcess = spawn(process.execPath, [path.join(REPO, 'bin', 'relay.js'), 'api'], {
      cwd: REPO,
      env: {
        ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: databaseUrl,
        TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:1', RELAY_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
        RELAY_JWT_SECRET: jwtSecret, RELAY_API_RATE_LIMIT: '0', RELAY_RUN_WORKER: 'false',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    stops.push(() => {
      service.kill('SIGINT');
      return new Promise((r) => service.once('exit', r));
    });
    const baseUrl = `http://127.0.0.1:${port}`;
    for (let i = 0; !(await fetch(`${baseUrl}/healthz`).then((r) => r.ok, () => false)); i++) {
      if (service.exitCode !== null || i > 300) throw new Error('service did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    const { token } = await issueAccessToken({ RELAY_JWT_SECRET: jwtSecret, RELAY_ACCESS_TOKEN_TTL_SECONDS: 3600 }, user);

    log(`timing ${CASES.length} searches over HTTP, ${runs} runs each…`);
    const api: Record<string, unknown>[] = [];
    for (const c of CASES) {
      const figures = await timeRuns(runs, async (i) => {
        const res = await fetch(`${baseUrl}/v1/events?${new URLSearchParams(c.params(i, events))}`, { headers: { authorization: `Bearer ${token}`, 'x-project-id': project } });
        const body = (await res.json()) as { data?: unknown[]; error?: { code: string } };
        if (body.error?.code === 'search_too_broad') return TIMED_OUT;
        if (!res.ok) throw new Error(`${c.name}: ${res.status} ${JSON.stringify(body)}`);
        return body.data!.length;
      });
      api.push({ search: c.name, kind: c.kind, selective: c.selective, ...figures });
      log(JSON.stringify(api[api.length - 1]));
    }

    // The text index choice, in SQL: the same first page (50 newest matches) through each index.
    log('text search: full text (in use) against pg_trgm…');
    t0 = performance.now();
    await db.query('create index events_search_trgm_bench on events using gin (relay_event_search_text(payload, headers) gin_trgm_ops)');
    const trgmBuild = Math.round((performance.now() - t0) / 100) / 10;
    await db.query('analyze events');
    const trgmSize = await size('events_search_trgm_bench');
    // Bounded like the API's searches (RELAY_SEARCH_TIMEOUT_MS' default).
    await db.query(`set statement_timeout = 5000`);
    const firstPage = (where: string, params: unknown[]) =>
      db.query(`select e.id from events e where e.project_id = $${params.length + 1} and ${where} order by e.id desc limit 51`, [...params, project]).then(
        (r) => r.rowCount ?? 0,
        (err: { code?: string }) => (err.code === '57014' ? TIMED_OUT : Promise.reject(err)),
      );
    const numbered = ([sql, params]: [string, unknown[]]): [string, unknown[]] => {
      let n = 0;
      return [sql.replace(/\?/g, () => `$${++n}`), params];
    };
    const textCompare: Record<string, unknown>[] = [];
    for (const c of CASES.filter((x) => x.kind === 'q')) {
      const fullText = await timeRuns(runs, async (i) => {
        const q = c.params(i, events).q;
        const { rows: [{ t }] } = await db.query<{ t: string }>('select relay_search_tsquery($1)::text as t', [q]);
        return firstPage(...numbered(textCondition(q, t)));
      });
      const trigram = await timeRuns(runs, (i) => {
        const q = c.params(i, events).q;
        return firstPage(`relay_event_search_text(e.payload, e.headers) ilike $1 escape '!'`, [`%${q.replace(/[!%_]/g, '!$&')}%`]);
      });
      textCompare.push({ search: c.name, selective: c.selective, full_text: fullText, pg_trgm: trigram });
      log(JSON.stringify(textCompare[textCompare.length - 1]));
    }
    await db.query('reset statement_timeout');
    await db.query('drop index events_search_trgm_bench');

    const figures = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, load_average_1m_before: loadBefore, load_average_1m_after: os.loadavg()[0] },
      options: { events, runs },
      load_seconds: Math.round(loadSeconds),
      search_rows_seconds: Math.round(searchRowsSeconds),
      sizes_mb: {
        events_table: Math.round((await size('events')) / 1e5) / 10,
        event_search_table: Math.round((await size('event_search')) / 1e5) / 10,
        event_search_doc_idx: Math.round((await size('event_search_doc_idx')) / 1e5) / 10,
        event_search_words_idx: Math.round((await size('event_search_words_idx')) / 1e5) / 10,
        pg_trgm_alternative: Math.round(trgmSize / 1e5) / 10,
      },
      build_seconds: { ...buildSeconds, pg_trgm_alternative: trgmBuild },
      api_searches: api,
      text_index_comparison_sql: textCompare,
      ingest_rows_per_second: ingest,
    };
    saveFigures(RESULTS, figures);
    writeBenchSection('search', formatSection(figures));
  } finally {
    await runStops(stops, (err) => log(`cleanup: ${String(err)}`));
  }
}

type Figures = {
  date: string; machine: { cpus: number; model?: string; node: string; load_average_1m_before: number; load_average_1m_after: number }; options: { events: number; runs: number };
  load_seconds: number; search_rows_seconds: number; sizes_mb: Record<string, number>; build_seconds: Record<string, number>; api_searches: Record<string, unknown>[];
  text_index_comparison_sql: Record<string, unknown>[]; ingest_rows_per_second: Record<string, number>;
};

function formatSection(f: Figures): string {
  const t = (p: unknown) => {
    const x = p as { p50_ms: number; p95_ms: number; timed_out: number };
    return `${x.p50_ms} / ${x.p95_ms}${x.timed_out ? ` (${x.timed_out} timed out at 5 s)` : ''}`;
  };
  return [
    '## Search (`npm run bench:search`)',
    '',
    `Last run ${f.date.slice(0, 16).replace('T', ' ')} UTC on ${f.machine.cpus} cores (${f.machine.model ?? 'unknown CPU'}), Node ${f.machine.node}, ` +
      `load average ${f.machine.load_average_1m_before} → ${f.machine.load_average_1m_after} (a machine shared with other sessions). ` +
      `${f.options.events.toLocaleString('en-US')} events in one project (embedded PostgreSQL 18, loaded in ${f.load_seconds} s); ${f.options.runs} runs per search after one warm-up.`,
    '',
    '`GET /v1/events` with a search, the whole HTTP request (first page of 50, newest first, with outcomes), p50 / p95 ms:',
    '',
    '| search | kind | selective | p50 / p95 ms | rows on the page |',
    '|---|---|---|---|---|',
    ...f.api_searches.map((r) => `| ${r.search} | \`${r.kind}\` | ${r.selective ? 'yes' : 'no'} | ${t(r)} | ${r.matched_first_page} |`),
    '',
    `Sizes: events table ${f.sizes_mb.events_table} MB; the \`event_search\` table ${f.sizes_mb.event_search_table} MB (its rows written in ${f.search_rows_seconds} s); \`event_search_doc_idx\` (GIN jsonb_path_ops) ${f.sizes_mb.event_search_doc_idx} MB, built in ${f.build_seconds.event_search_doc_idx} s; ` +
      `\`event_search_words_idx\` (GIN full text) ${f.sizes_mb.event_search_words_idx} MB, built in ${f.build_seconds.event_search_words_idx} s; a pg_trgm index over the same text would be ${f.sizes_mb.pg_trgm_alternative} MB, built in ${f.build_seconds.pg_trgm_alternative} s.`,
    '',
    'Full text (in use) against pg_trgm for `q`, the first page in SQL alone, p50 / p95 ms:',
    '',
    '| search | selective | full text | pg_trgm |',
    '|---|---|---|---|',
    ...f.text_index_comparison_sql.map((r) => `| ${r.search} | ${r.selective ? 'yes' : 'no'} | ${t(r.full_text)} | ${t(r.pg_trgm)} |`),
    '',
    `Ingress INSERT cost (20,000 realistic rows, batches of 40, ingress's unnest INSERT), rows/s: as ingress writes, no search index on \`events\`, ${f.ingest_rows_per_second.no_search_index}; ` +
      `with the search expression indexes on \`events\` (jsonb + full text, if search were indexed on the ingest path) ${f.ingest_rows_per_second.expression_indexes_on_events}; jsonb + pg_trgm instead ${f.ingest_rows_per_second.jsonb_plus_pg_trgm_instead}. ` +
      `The outbox fan-out writes the same events' search rows (batches of 500) at ${f.ingest_rows_per_second.search_rows_at_fan_out} rows/s, off the ingress path. ` +
      'Full text was chosen for its cost: a trigram index indexes every distinct 3-character group of ids, hashes and signatures. Its price: `q` finds text from the start of a word only.',
  ].join('\n');
}
