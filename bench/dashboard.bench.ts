import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from 'pg';
import { chromium, type Page } from 'playwright-core';
import { chromiumPath, graphql, logIn } from '../test/dashboard/browser';
import { freePort } from '../test/support/free-port';
import { startMigratedBenchPostgres } from './bench-database';
import { runStops, saveFigures, writeBenchSection } from './bench-output';
import { benchRelayEnv, startBenchApi } from './bench-stack';

/**
 * `npm run bench:dashboard [-- --events 100000 --runs 5]`
 *
 * The dashboard's pages in chromium over a project of `--events` stored events (issue 18's
 * "100,000 events" timings): signs up through the API, makes 3 endpoints and 2 webhook destinations,
 * loads the events with `INSERT … SELECT generate_series` (spread over the last 7 days, each with a
 * delivery and an attempt: 93 % delivered, 4 % failed, half of those dead-lettered, 2 % retrying,
 * 1 % filtered), starts `relay api` serving a fresh dashboard build and opens each page `--runs`
 * times (after one warm-up) as a full page load: the Events list, five filtered views, an event, an
 * endpoint, the metrics page (project and one endpoint). Per page: time from navigation start to the
 * first rows on screen (the page's main table, the event's deliveries, the metrics totals and
 * charts), to every GraphQL answer received (`data_ms`), and the API time of each query it sent.
 * Writes bench/results/dashboard.json and the `## Dashboard` section of docs/benchmarks.md.
 */
const REPO = path.resolve(__dirname, '..');
const RESULTS = path.join(REPO, 'bench', 'results', 'dashboard.json');
const PASSWORD = 'correct horse battery staple';

function arg(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : fallback;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]) : 0;
};

/** A page to time: its URL and the moment its first meaningful content is on screen. */
interface View {
  name: string;
  url: string;
  /** On screen when every selector matches and there are this many charts (checked on every animation frame). */
  ready: { selectors: string[]; canvases?: number };
}

const rowsOf = (table: string, ...more: string[]) => ({ selectors: [`table[aria-label="${table}"] tbody tr`, ...more] });
const EVENTS_OR_EMPTY = { selectors: ['table[aria-label="Events"] tbody tr, .empty'] };
const METRICS_READY = { selectors: ['[aria-label="Totals"]'], canvases: 3 };

export async function seed(db: Client, project: string, endpoints: string[], destinations: string[], events: number): Promise<void> {
  const org = (await db.query('select organization_id from projects where id = $1', [project])).rows[0].organization_id as string;
  // Spread over 7 days, newest first by id (uuidv7 of the same instant as created_at).
  const span = (7 * 86400 * 1000) / events;
  await db.query(
    `insert into events (id, endpoint_id, project_id, organization_id, event_type, payload, headers, status, dispatched_at, created_at)
     select uuidv7(-t), ($1::uuid[])[1 + g % 3], $2, $3, (array['push', 'pull_request', 'issues', 'release'])[1 + g % 4],
            json_build_object('action', (array['opened', 'closed', 'synchronize'])[1 + g % 3], 'ref', 'refs/heads/main', 'n', g,
              'repository', json_build_object('name', 'relay', 'full_name', 'acme/relay', 'private', false),
              'sender', json_build_object('login', 'user' || (g % 50), 'id', g % 50)),
            json_build_object('content-type', 'application/json', 'user-agent', 'GitHub-Hookshot/abc123', 'x-github-delivery', gen_random_uuid()),
            case when g % 100 = 7 then 'filtered' else 'received' end, now() - t, now() - t
       from generate_series(1, $4::int) g, lateral (select g * $5::double precision * interval '1 millisecond' as t) s`,
    [endpoints, project, org, events, span],
  );
  // One delivery per received event, to the first destination (the second for the first endpoint's events); its one attempt.
  await db.query(
    `insert into deliveries (id, event_id, destination_id, endpoint_id, project_id, status, attempt_count, dead_lettered_at, workflow_started_at, completed_at, created_at)
     select uuidv7(e.created_at + interval '1 second' - now()), e.id, case when e.endpoint_id = $1 then $3::uuid else $2::uuid end, e.endpoint_id, e.project_id,
            k.status, 1, case when k.status = 'failed' and h % 2 = 0 then e.created_at + interval '1 minute' end,
            e.created_at, case when k.status in ('success', 'failed') then e.created_at + interval '2 seconds' end, e.created_at + interval '1 second'
       from events e, lateral (select abs(hashtext(e.id::text)) % 100 as h) x,
            lateral (select case when h < 93 then 'success' when h < 97 then 'failed' when h < 99 then 'retrying' else 'queued' end as status) k
      where e.project_id = $4 and e.status = 'received'`,
    [endpoints[0], destinations[0], destinations[1], project],
  );
  await db.query(
    `insert into delivery_attempts (id, delivery_id, event_id, destination_id, attempt_number, status, status_code, error, latency_ms, created_at)
     select uuidv7(d.created_at + interval '1 second' - now()), d.id, d.event_id, d.destination_id, 1,
            case when d.status = 'success' then 'success' when d.status = 'failed' then 'failed' else 'retrying' end,
            case when d.status = 'success' then 200 when abs(hashtext(d.id::text)) % 3 = 0 then null else 503 end,
            case when d.status = 'success' then null else 'upstream answered 503' end,
            20 + abs(hashtext(d.id::text)) % 700, d.created_at + interval '1 second'
       from deliveries d where d.project_id = $1 and d.status <> 'queued'`,
    [project],
  );
  await db.query('vacuum analyze events, deliveries, delivery_attempts');
}

interface Timing {
  first_rows_ms: number;
  data_ms: number;
  queries: Record<string, number>;
}

/** One full page load of `view`: navigation start to its first rows, to its last GraphQL answer, and each query's time. */
async function timeView(page: Page, view: View): Promise<Timing> {
  const queries: Record<string, number> = {};
  const finished: Promise<void>[] = [];
  const onFinished = (request: import('playwright-core').Request) => {
    if (!request.url().endsWith('/graphql')) return;
    finished.push(
      (async () => {
        const name = (request.postDataJSON() as { operationName?: string } | null)?.operationName ?? '?';
        const t = request.timing();
        queries[name] = Math.round(Math.max(queries[name] ?? 0, t.responseEnd - t.requestStart));
      })(),
    );
  };
  page.on('requestfinished', onFinished);
  try {
    await page.goto(view.url, { waitUntil: 'commit' });
    // A function, not a string: the dashboard's CSP forbids eval in the page.
    const onScreen = await page.waitForFunction(
      ({ selectors, canvases = 0 }) => {
        const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown; querySelectorAll(s: string): { length: number } } }).document;
        return selectors.every((s) => doc.querySelector(s)) && doc.querySelectorAll('canvas').length >= canvases && performance.now();
      },
      view.ready,
      { polling: 'raf', timeout: 60_000 },
    );
    const firstRows = (await onScreen.jsonValue()) as number;
    await page.waitForLoadState('networkidle');
    await Promise.all(finished);
    const dataMs = await page.evaluate(() =>
      Math.max(0, ...performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/graphql')).map((e) => (e as unknown as { responseEnd: number }).responseEnd)),
    );
    return { first_rows_ms: Math.round(firstRows), data_ms: Math.round(dataMs), queries };
  } finally {
    page.off('requestfinished', onFinished);
  }
}

export async function main(args: string[]): Promise<void> {
  const events = arg(args, 'events', 100_000);
  const runs = arg(args, 'runs', 5);
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('bench dashboard: no chromium binary (set CHROMIUM_PATH or apt-get install chromium)');
  const stops: Array<() => Promise<unknown> | unknown> = [];
  const log = (msg: string) => process.stderr.write(`dashboard bench: ${msg}\n`);
  // Ctrl+C stops what the bench started (PostgreSQL, the API, chromium) before exiting.
  const interrupted = () => void runStops(stops, (err) => log(`cleanup: ${String(err)}`)).then(() => process.exit(130));
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    const { url: databaseUrl, dataDir, db } = await startMigratedBenchPostgres('dashboard', stops);

    const dashboardDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-bench-dashboard-dist-'));
    stops.push(() => fs.rmSync(dashboardDir, { recursive: true, force: true }));
    const build = spawnSync(process.execPath, [path.join(REPO, 'bin', 'relay.js'), 'build-dashboard'], { cwd: REPO, env: { ...process.env, RELAY_DASHBOARD_DIR: dashboardDir }, stdio: ['ignore', 'ignore', 'inherit'] });
    if (build.status !== 0) throw new Error('dashboard build failed');

    const port = await freePort();
    const { env } = benchRelayEnv('dashboard', { databaseUrl, temporalUrl: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:1', dataDir });
    const baseUrl = await startBenchApi({ ...env, RELAY_DASHBOARD_DIR: dashboardDir, RELAY_ALLOW_PRIVATE_NETWORKS: 'true', PUBLIC_BASE_URL: `http://127.0.0.1:${port}` }, port, stops);

    const email = `bench-dashboard-${randomBytes(4).toString('hex')}@example.test`;
    const token = (await graphql(baseUrl, 'mutation ($i: SignupInput!) { signup(input: $i) { accessToken } }', { i: { email, password: PASSWORD } })).signup.accessToken as string;
    const project = (await graphql(baseUrl, '{ projects { data { id } } }', {}, token)).projects.data[0].id as string;
    const gql = (query: string, variables: Record<string, unknown> = {}) => graphql(baseUrl, query, { p: project, ...variables }, token);
    const endpoints: string[] = [];
    for (const name of ['GitHub', 'Shop', 'Tracker']) endpoints.push((await gql('mutation ($p: ID, $n: String!) { createEndpoint(projectId: $p, input: { name: $n }) { id } }', { n: name })).createEndpoint.id);
    const destinations: string[] = [];
    for (const name of ['Orders service', 'Audit log']) {
      destinations.push((await gql('mutation ($p: ID, $n: String!) { createDestination(projectId: $p, input: { name: $n, type: "webhook", webhookUrl: "http://127.0.0.1:9/hook" }) { id } }', { n: name })).createDestination.id);
    }
    for (const e of endpoints) await gql('mutation ($p: ID, $e: ID!, $d: ID!) { createLink(projectId: $p, endpointId: $e, input: { destinationId: $d }) { id } }', { e, d: e === endpoints[0] ? destinations[1] : destinations[0] });

    const loadBefore = os.loadavg()[0];
    log(`loading ${events.toLocaleString('en-US')} events with their deliveries and attempts…`);
    let t0 = performance.now();
    await seed(db, project, endpoints, destinations, events);
    const loadSeconds = Math.round((performance.now() - t0) / 1000);
    log(`loaded in ${loadSeconds} s`);
    const failedEvent = (await db.query(`select event_id from deliveries where project_id = $1 and status = 'failed' order by id desc limit 1 offset 20`, [project])).rows[0].event_id as string;

    const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    stops.push(() => browser.close());
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: baseUrl });
    const page = await context.newPage();
    await logIn(page, email, PASSWORD);

    const dayAgo = new Date(Date.now() - 86400_000).toISOString();
    const views: View[] = [
      { name: 'events', url: '/events', ready: rowsOf('Events') },
      { name: 'events: outcome failed', url: '/events?outcome=failed', ready: rowsOf('Events') },
      { name: 'events: response 5xx', url: '/events?code=5xx', ready: rowsOf('Events') },
      { name: 'events: destination', url: `/events?destination=${destinations[1]}`, ready: rowsOf('Events') },
      { name: 'events: type prefix', url: '/events?type=rel', ready: rowsOf('Events') },
      { name: 'events: endpoint, last day', url: `/events?endpoint=${endpoints[2]}&after=${encodeURIComponent(dayAgo)}`, ready: rowsOf('Events') },
      // Filters nothing matches: the whole project is read to find that out.
      { name: 'events: outcome no_destination (no match)', url: '/events?outcome=no_destination', ready: EVENTS_OR_EMPTY },
      { name: 'events: response 3xx (no match)', url: '/events?code=3xx', ready: EVENTS_OR_EMPTY },
      { name: 'event', url: `/events/${failedEvent}`, ready: rowsOf('Attempts', '[data-testid=delivery]') },
      { name: 'endpoint', url: `/endpoints/${endpoints[0]}`, ready: rowsOf('Recent events') },
      { name: 'metrics', url: '/project-metrics', ready: METRICS_READY },
      { name: 'metrics: endpoint', url: `/project-metrics?endpoint=${endpoints[0]}`, ready: METRICS_READY },
    ];
    const pages: Record<string, unknown>[] = [];
    for (const view of views) {
      await timeView(page, view);
      const timings: Timing[] = [];
      for (let i = 0; i < runs; i++) timings.push(await timeView(page, view));
      const queries: Record<string, number> = {};
      for (const name of Object.keys(timings[timings.length - 1].queries)) queries[name] = pct(timings.map((t) => t.queries[name] ?? 0), 50);
      const row = {
        page: view.name,
        url: view.url.replace(/[0-9a-f-]{36}/g, '<id>').replace(/after=[^&]+/, 'after=<a day ago>'),
        first_rows_ms: { p50: pct(timings.map((t) => t.first_rows_ms), 50), max: pct(timings.map((t) => t.first_rows_ms), 100) },
        data_ms: { p50: pct(timings.map((t) => t.data_ms), 50), max: pct(timings.map((t) => t.data_ms), 100) },
        query_ms_p50: queries,
      };
      pages.push(row);
      log(JSON.stringify(row));
    }
    t0 = performance.now();

    const figures = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, load_average_1m_before: loadBefore, load_average_1m_after: os.loadavg()[0] },
      options: { events, runs },
      load_seconds: loadSeconds,
      pages,
    };
    saveFigures(RESULTS, figures);
    writeBenchSection('dashboard', formatSection(figures));
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await runStops(stops, (err) => log(`cleanup: ${String(err)}`));
  }
}

type Figures = {
  date: string; machine: { cpus: number; model?: string; node: string; load_average_1m_before: number; load_average_1m_after: number }; options: { events: number; runs: number };
  load_seconds: number; pages: Record<string, any>[];
};

function formatSection(f: Figures): string {
  return [
    '## Dashboard at 100,000 events (`npm run bench:dashboard`)',
    '',
    `Last run ${f.date.slice(0, 16).replace('T', ' ')} UTC on ${f.machine.cpus} cores (${f.machine.model ?? 'unknown CPU'}), Node ${f.machine.node}, ` +
      `load average ${f.machine.load_average_1m_before} → ${f.machine.load_average_1m_after} (a machine shared with other sessions). ` +
      `${f.options.events.toLocaleString('en-US')} events in one project over 7 days, each received one with a delivery and an attempt (embedded PostgreSQL 18, loaded in ${f.load_seconds} s); ` +
      `Debian's chromium, headless, 1280×800, on the same machine as \`relay api\`. Each page is a full page load (the dashboard's JavaScript, the session refresh, then the page's queries), ` +
      `${f.options.runs} runs after one warm-up: median and slowest. *First rows*: navigation start to the page's first rows on screen; *all data*: to the last GraphQL answer.`,
    '',
    '| page | first rows p50 / max ms | all data p50 / max ms |',
    '|---|---|---|',
    ...f.pages.map((p) => `| ${p.page} | ${p.first_rows_ms.p50} / ${p.first_rows_ms.max} | ${p.data_ms.p50} / ${p.data_ms.max} |`),
    '',
    'Each page\'s URL and the API time of its queries:',
    '',
    '| page | URL | API time of its queries, p50 ms |',
    '|---|---|---|',
    ...f.pages.map(
      (p) =>
        `| ${p.page} | \`${p.url}\` | ${Object.entries(p.query_ms_p50 as Record<string, number>)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')} |`,
    ),
  ].join('\n');
}
