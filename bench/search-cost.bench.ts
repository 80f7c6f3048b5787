import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { uuidv7 } from '../src/common/ids';
import { startMigratedBenchPostgres } from './bench-database';
import { runStops, saveFigures, writeBenchSection } from './bench-output';
import { startTreeSampler } from './cpu-sampler';
import { sizedBody } from './webhook-bodies';

/**
 * `node bin/relay.js bench search-cost [-- --events 20000 --rounds 2 --only 0,7,8]`
 *
 * What one event's search row costs PostgreSQL, by part: the CPU of every PostgreSQL process
 * (backends, WAL writer, autovacuum: /proc) per event while `--events` realistic events (ingress's
 * stored shape: a 772-byte push-like payload and its request headers) get their search rows in the
 * fan-out's batches of 500, for each variant below (`--only`: these, by index), `--rounds` times,
 * alternating the order. CPU, not time:
 * it holds on a busy machine where wall time does not.
 * Writes bench/results/search-cost.json and the `## Search row cost` section of docs/benchmarks.md.
 */
const REPO = path.resolve(__dirname, '..');
const RESULTS = path.join(REPO, 'bench', 'results', 'search-cost.json');

interface Variant {
  name: string;
  /** DDL run on a fresh copy of `event_search` named %t (its indexes come from `indexes`). */
  setup?: string[];
  /** The statement run for each batch (the events named by $1): an INSERT … SELECT into %t, or a SELECT that only computes. */
  insert: string;
  /** Indexes created on %t before the run. */
  indexes: string[];
}

const DOC_INDEX = 'create index on %t using gin (doc jsonb_path_ops)';
const WORDS_INDEX = 'create index on %t using gin (words)';
const events = (select: string) => `${select} from events where id = any($1::uuid[])`;
const FULL = events('insert into %t (event_id, doc, words) select id, relay_event_payload_jsonb(payload), relay_event_search_vector(payload, headers)');
/** The words as the text-search parser makes them, positions included (what the fan-out wrote before relay_search_words). */
const PARSER_WORDS = `to_tsvector('simple', regexp_replace(relay_event_search_text(payload, headers), '[^[:alnum:]]+', ' ', 'g'))`;

export const VARIANTS: Variant[] = [
  { name: 'nothing (the events read only)', insert: events('select count(*)'), indexes: [] },
  { name: 'doc computed (jsonb), not stored', insert: events('select sum(length(relay_event_payload_jsonb(payload)::text))'), indexes: [] },
  { name: 'words computed (relay_search_words), not stored', insert: events('select sum(length(relay_event_search_vector(payload, headers)))'), indexes: [] },
  { name: "words computed by the text-search parser, not stored", insert: events(`select sum(length(${PARSER_WORDS}))`), indexes: [] },
  { name: 'rows stored, no index', insert: FULL, indexes: [] },
  { name: 'rows + doc index (jsonb_path_ops)', insert: FULL, indexes: [DOC_INDEX] },
  { name: 'rows + words index', insert: FULL, indexes: [WORDS_INDEX] },
  { name: 'rows + both indexes (what the fan-out writes)', insert: FULL, indexes: [DOC_INDEX, WORDS_INDEX] },
  { name: "rows + both indexes, words by the text-search parser (with positions)", insert: FULL.replace('relay_event_search_vector(payload, headers)', PARSER_WORDS), indexes: [DOC_INDEX, WORDS_INDEX] },
  { name: 'rows + both indexes, fastupdate off', insert: FULL, indexes: [`${DOC_INDEX} with (fastupdate = off)`, `${WORDS_INDEX} with (fastupdate = off)`] },
];

function headers(): string {
  return JSON.stringify({
    host: '127.0.0.1:3000',
    'content-type': 'application/json',
    'user-agent': `GitHub-Hookshot/${randomBytes(4).toString('hex').slice(0, 7)}`,
    'x-github-event': 'push',
    'x-github-delivery': randomUUID(),
    'x-github-hook-id': String(400000000 + Math.floor(Math.random() * 1e6)),
    'x-hub-signature-256': `sha256=${createHmac('sha256', 'k').update(randomBytes(8)).digest('hex')}`,
    'content-length': '772',
  });
}

export async function main(args: string[]): Promise<void> {
  const get = (name: string, fallback: number) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const events = get('events', 20_000);
  const rounds = get('rounds', 2);
  const only = (() => {
    const i = args.indexOf('--only');
    return i >= 0 ? args[i + 1].split(',').map(Number) : undefined;
  })();
  const stops: Array<() => Promise<unknown> | unknown> = [];
  try {
    const { db } = await startMigratedBenchPostgres('search-cost', stops);
    const [org, user, project, endpoint] = [uuidv7(), uuidv7(), uuidv7(), uuidv7()];
    await db.query('insert into organizations (id, name) values ($1, $2)', [org, 'Bench']);
    await db.query('insert into users (id, email) values ($1, $2)', [user, `bench-${user}@example.test`]);
    await db.query('insert into projects (id, organization_id, user_id, name, slug) values ($1, $2, $3, $4, $5)', [project, org, user, 'Bench', `bench-${project}`]);
    await db.query(`insert into webhook_endpoints (id, project_id, name, slug, signing_secret_enc) values ($1, $2, 'Bench', $3, 'unused')`, [endpoint, project, `bench-${endpoint}`]);
    const ids: string[] = [];
    for (let b = 0; b < events; b += 500) {
      const batch = Array.from({ length: Math.min(500, events - b) }, () => uuidv7());
      ids.push(...batch);
      await db.query(
        `insert into events (id, endpoint_id, project_id, organization_id, event_type, payload, headers, status, dispatched_at)
         select id, $2, $3, $4, 'push', p, h, 'received', now() from unnest($1::uuid[], $5::json[], $6::json[]) as t(id, p, h)`,
        [batch, endpoint, project, org, batch.map((_, i) => sizedBody(b + i, 772)), batch.map(headers)],
      );
    }
    await db.query('vacuum analyze events');
    await db.query('checkpoint');
    const variants = VARIANTS.filter((_, i) => !only || only.includes(i));
    const results: Record<string, number[]> = {};
    for (let round = 0; round < rounds; round++) {
      for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
        const table = `bench_search_${randomBytes(3).toString('hex')}`;
        await db.query(`create table ${table} (like event_search including defaults)`);
        await db.query(`alter table ${table} add primary key (event_id)`);
        for (const ddl of [...(v.setup ?? []), ...v.indexes]) await db.query(ddl.replace('%t', table));
        await db.query('checkpoint');
        const sample = startTreeSampler(process.pid, (comm) => (comm === 'postgres' ? 'postgres' : 'other'));
        for (let b = 0; b < ids.length; b += 500) await db.query(v.insert.replace('%t', table), [ids.slice(b, b + 500)]);
        // The pending lists' clean-up and the WAL it writes are part of the cost: done now, inside the span.
        await db.query(`vacuum ${table}`);
        const { cpu_ms } = sample();
        (results[v.name] ??= []).push(Math.round(((cpu_ms.postgres ?? 0) / ids.length) * 1000) / 1000);
        process.stderr.write(`search cost: ${v.name}: ${results[v.name].at(-1)} ms per event (load ${os.loadavg()[0].toFixed(1)})\n`);
        await db.query(`drop table ${table}`);
      }
    }
    const date = new Date().toISOString();
    saveFigures(RESULTS, { date, events, rounds, postgres_cpu_ms_per_event: results });
    writeBenchSection(
      'search-cost',
      [
        '## Search row cost (`npm run bench:search-cost`)',
        '',
        `What one event's search row (\`event_search\`: docs/internals/api.md "Event search") costs PostgreSQL: the CPU of every PostgreSQL process (/proc) per event while ${events} events (772-byte push-like payloads and their request headers, as ingress stores them) get their rows in the fan-out's batches of 500, the pending lists cleaned up inside the span; ${rounds} round(s), the order alternating. ${os.cpus().length} cores, Node ${process.version}, ${date.slice(0, 16).replace('T', ' ')} UTC, 1-minute load average ${os.loadavg()[0].toFixed(1)} at the end (CPU per event holds on a busy machine better than time does).`,
        '',
        '| what is done per event | PostgreSQL CPU ms per event |',
        '|---|---|',
        ...Object.entries(results).map(([name, ms]) => `| ${name} | ${ms.join(' / ')} |`),
      ].join('\n'),
    );
  } finally {
    await runStops(stops, (err) => process.stderr.write(`search cost cleanup: ${String(err)}\n`));
  }
}
