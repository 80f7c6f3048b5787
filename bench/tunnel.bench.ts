import { createHmac, randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { issueAccessToken } from '../src/auth/tokens';
import { uuidv7 } from '../src/common/ids';
import { loadConfig } from '../src/config/config';
import { createOrm, migrate } from '../src/db/orm';
import { startBenchPostgres } from './bench-database';
import { runStops, saveFigures, writeBenchSection } from './bench-output';
import { benchRelayEnv, startBenchTemporal, startRelayProcesses } from './bench-stack';

/**
 * The `listen` tunnel's overhead: `relay api` and `relay worker` as separate
 * processes on a private PostgreSQL and Temporal dev server, and a CLI
 * simulated here (graphql-ws subscription, `reportCliForward` answering 200
 * at once, no local HTTP server). For each event, one at a time: ingress 202
 * → forward received by the CLI, and 202 → attempt recorded as success.
 *
 *   node bin/relay.js bench tunnel [--events 200]
 */
const REPO = path.resolve(__dirname, '..');
const RESULTS = path.join(REPO, 'bench', 'results', 'tunnel.json');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const percentile = (sorted: number[], p: number) => Number(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(1));

export async function main(args: string[]): Promise<void> {
  const i = args.indexOf('--events');
  const events = i >= 0 ? Number(args[i + 1]) : 200;
  if (!(events >= 10 && events <= 10_000)) throw new Error('--events must be between 10 and 10000');
  const stops: Array<() => Promise<unknown> | unknown> = [];
  try {
    const { dataDir, url: databaseUrl } = await startBenchPostgres('tunnel', stops);
    const orm = await createOrm(databaseUrl);
    await migrate(orm);
    stops.push(() => orm.close());
    const knex = orm.em.getConnection().getKnex();
    const temporal = await startBenchTemporal('tunnel', stops, dataDir);

    const { env, box } = benchRelayEnv('tunnel', { databaseUrl, temporalUrl: temporal.url, dataDir });
    const secret = `whsec_${randomBytes(24).toString('hex')}`;
    const slug = `tunnel-${randomBytes(4).toString('hex')}`;
    const [org, user, project, endpoint] = [uuidv7(), uuidv7(), uuidv7(), uuidv7()];
    await knex.raw('insert into organizations (id, name, plan) values (?, ?, ?)', [org, 'Tunnel', 'growth']);
    await knex.raw('insert into users (id, email) values (?, ?)', [user, `${slug}@example.test`]);
    await knex.raw('insert into organization_members (id, organization_id, user_id, role) values (?, ?, ?, ?)', [uuidv7(), org, user, 'owner']);
    await knex.raw('insert into projects (id, organization_id, user_id, name, slug) values (?, ?, ?, ?, ?)', [project, org, user, 'Tunnel', slug]);
    await knex.raw('insert into webhook_endpoints (id, project_id, name, slug, signing_secret_enc) values (?, ?, ?, ?, ?)', [endpoint, project, 'Tunnel', slug, box.seal(secret)]);

    const baseUrl = (await startRelayProcesses(env, stops)).api.baseUrl;

    const { token } = await issueAccessToken(loadConfig({ ...env, NODE_ENV: 'development' }), user);
    const gql = async (query: string, variables: Record<string, unknown>) => {
      const res = await fetch(`${baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query, variables }) });
      const body = (await res.json()) as { data?: Record<string, any>; errors?: unknown };
      if (body.errors) throw new Error(JSON.stringify(body.errors));
      return body.data!;
    };
    const session = await gql('mutation($p: ID, $i: StartCliSessionInput!) { startCliSession(projectId: $p, input: $i) { destination { id } } }', {
      p: project,
      i: { machine: 'bench', sourceSlugs: [slug] },
    });
    const destinationId: string = session.startCliSession.destination.id;

    // The simulated CLI: answers every forward with 200 at once and notes when each arrived.
    const forwardedAt = new Map<string, number>();
    const client = createClient({ url: `${baseUrl.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, retryAttempts: 0 });
    stops.push(() => client.dispose());
    client.subscribe<{ cliForwards: { id: string; eventId: string } }>(
      { query: 'subscription($p: ID, $d: ID!) { cliForwards(projectId: $p, destinationId: $d) { id eventId } }', variables: { p: project, d: destinationId } },
      {
        next: ({ data }) => {
          const forward = data!.cliForwards;
          forwardedAt.set(forward.eventId, performance.now());
          void gql('mutation($p: ID, $i: CliForwardResultInput!) { reportCliForward(projectId: $p, input: $i) }', { p: project, i: { forwardId: forward.id, statusCode: 200, responseBody: 'ok', latencyMs: 0 } });
        },
        error: (err) => process.stderr.write(`cliForwards: ${JSON.stringify(err)}\n`),
        complete: () => undefined,
      },
    );
    for (let n = 0; n < 100; n++) {
      const { rows } = await knex.raw('select count(*)::int as n from cli_sessions where destination_id = ?', [destinationId]);
      if (rows[0].n > 0) break;
      await sleep(50);
    }

    const toForward: number[] = [];
    const toRecorded: number[] = [];
    // The first events warm up the worker (workflow bundle, connections); they are not counted.
    const warmup = 10;
    for (let n = 0; n < events + warmup; n++) {
      const body = JSON.stringify({ n });
      const started = performance.now();
      const res = await fetch(`${baseUrl}/hooks/${slug}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` },
        body,
      });
      const { event_id: eventId } = (await res.json()) as { event_id: string };
      for (;;) {
        const { rows } = await knex.raw(`select 1 from delivery_attempts where event_id = ? and status = 'success'`, [eventId]);
        if (rows.length > 0) break;
        await sleep(2);
      }
      if (n < warmup) continue;
      toRecorded.push(performance.now() - started);
      toForward.push((forwardedAt.get(eventId) ?? NaN) - started);
    }
    toForward.sort((a, b) => a - b);
    toRecorded.sort((a, b) => a - b);
    const figures = {
      measured_at: new Date().toISOString(),
      machine: `${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown'}`,
      load_average_1m: Number(os.loadavg()[0].toFixed(1)),
      events,
      ingress_to_forward_ms: { p50: percentile(toForward, 50), p90: percentile(toForward, 90), p99: percentile(toForward, 99) },
      ingress_to_attempt_recorded_ms: { p50: percentile(toRecorded, 50), p90: percentile(toRecorded, 90), p99: percentile(toRecorded, 99) },
    };
    saveFigures(RESULTS, figures);
    writeBenchSection(
      'tunnel',
      [
        '## CLI tunnel (`node bin/relay.js bench tunnel`)',
        '',
        `${events} events one at a time through \`relay api\` + \`relay worker\` (separate processes) to a simulated \`relay listen\` that answers 200 at once, PostgreSQL and the Temporal dev server on the same machine. Figures from ${figures.measured_at.slice(0, 10)}: ${figures.machine}, 1-minute load average ${figures.load_average_1m} at the end (other work shares the machine).`,
        '',
        '| from the ingress 202 to | p50 ms | p90 ms | p99 ms |',
        '|---|---|---|---|',
        `| the forward arriving at the CLI | ${figures.ingress_to_forward_ms.p50} | ${figures.ingress_to_forward_ms.p90} | ${figures.ingress_to_forward_ms.p99} |`,
        `| the attempt recorded (success) | ${figures.ingress_to_attempt_recorded_ms.p50} | ${figures.ingress_to_attempt_recorded_ms.p90} | ${figures.ingress_to_attempt_recorded_ms.p99} |`,
      ].join('\n'),
    );
  } finally {
    await runStops(stops, (err) => process.stderr.write(`cleanup: ${String(err)}\n`));
  }
}
