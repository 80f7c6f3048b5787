import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createContainer } from '../src/app/container';
import { createLogger } from '../src/common/logger';
import { loadConfig } from '../src/config/config';
import { createOrm, migrate } from '../src/db/orm';
import { findTemporalCli, startTemporalDevServer } from '../src/launcher/temporal';
import { ensureSearchAttributes } from '../src/temporal/ensure-search-attributes';
import { freePort } from '../test/support/free-port';
import { runRollingDeploy } from '../test/support/rolling-deploy';
import { startBenchPostgres } from './bench-database';
import { runStops, saveFigures, writeBenchSection } from './bench-output';

/**
 * `npm run bench:rolling [-- --rate 100 --seconds 120 --drain-ms 3000 --settle-minutes 30]`
 *
 * Issue 20.4's rolling deploy at full length (test/engines/rolling-deploy.test.ts runs a
 * short one): two `relay api` and two `relay worker` processes on a fresh PostgreSQL and
 * Temporal dev server; signed webhooks at `rate`/s through a balancer that follows
 * /readyz (checked every 250 ms); each process in turn gets SIGTERM and is replaced.
 * Counts lost events, 5xx answers (from draining processes apart), connection errors,
 * non-terminal deliveries and duplicates, and how long the backlog took to drain after the
 * traffic (waiting at most `--settle-minutes`: above what this machine delivers, about
 * 40/s, the deliveries queue up and drain afterwards). Writes bench/results/rolling.json and the
 * marked section of docs/benchmarks.md.
 */
const REPO = path.resolve(__dirname, '..');

function option(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
}

export async function main(args: string[]): Promise<void> {
  const opts = {
    rate: Number(option(args, 'rate', '100')),
    seconds: Number(option(args, 'seconds', '120')),
    drainMs: Number(option(args, 'drain-ms', '3000')),
    settleMinutes: Number(option(args, 'settle-minutes', '30')),
  };
  const stops: Array<() => Promise<unknown> | unknown> = [];
  try {
    const { dataDir, url } = await startBenchPostgres('rolling', stops, fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir());
    const orm = await createOrm(url);
    await migrate(orm);
    await orm.close();
    const temporal = await startTemporalDevServer({
      cliPath: findTemporalCli(process.env.TEMPORAL_CLI_PATH),
      dbFile: path.join(dataDir, 'temporal.db'),
      port: await freePort(),
      uiPort: await freePort(),
      namespace: 'default',
    });
    stops.push(() => temporal.stop());
    await ensureSearchAttributes({ address: temporal.url, namespace: 'default' });
    const secrets = { RELAY_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`, RELAY_JWT_SECRET: randomBytes(32).toString('hex') };
    Object.assign(process.env, secrets, { TEMPORAL_ADDRESS: temporal.url });
    const container = await createContainer(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: url, TEMPORAL_ADDRESS: temporal.url, ...secrets }), createLogger('silent'));
    stops.push(() => container.close());

    process.stderr.write(`rolling bench: ${opts.rate} webhooks/s for ${opts.seconds} s, 2 api + 2 worker processes restarted in turn\n`);
    const started = new Date();
    const result = await runRollingDeploy({
      container,
      databaseUrl: url,
      rate: opts.rate,
      seconds: opts.seconds,
      drainDelayMs: opts.drainMs,
      healthCheckMs: 250,
      env: { TEMPORAL_ADDRESS: temporal.url, ...secrets },
      log: (line) => process.stderr.write(`  ${line}\n`),
      settleTimeoutMs: opts.settleMinutes * 60_000,
    });
    const load = os.loadavg()[0].toFixed(1);
    const figures = { measured_at: started.toISOString(), node: process.version, cores: os.cpus().length, load_average_1m_end: Number(load), ...opts, ...result };
    saveFigures(path.join(REPO, 'bench', 'results', 'rolling.json'), figures);
    const restarts = result.restarts.map((r) => `${r.process} exit ${r.exitCode}, stopped in ${(r.stopMs / 1000).toFixed(1)} s, replacement ready ${(r.replacementReadyMs / 1000).toFixed(1)} s after SIGTERM`).join('; ');
    writeBenchSection(
      'rolling',
      [
        `## Rolling deploy (\`npm run bench:rolling\`)`,
        '',
        `Measured on ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC: ${os.cpus().length} cores shared with other engineers' work (1-minute load ${load} at the end), Node ${process.version}; Temporal dev server and PostgreSQL on the same machine. ${opts.rate} signed webhooks/s for ${opts.seconds} s through a balancer following /readyz (every 250 ms) over two \`relay api\` processes (RELAY_DRAIN_DELAY_MS=${opts.drainMs}); two \`relay worker\` processes; each of the four restarted in turn with SIGTERM.`,
        '',
        '| sent | traffic | acknowledged (202) | lost | 5xx (while draining) | other answers | served while draining | no answer | not terminal | delivery statuses | duplicates | undelivered when the traffic stopped | all delivered within |',
        '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
        `| ${result.sent} | ${(result.trafficMs / 1000).toFixed(1)} s (${(result.sent / (result.trafficMs / 1000)).toFixed(1)}/s) | ${result.acknowledged} | ${result.lost} | ${result.answers5xx} (${result.answers5xxWhileDraining}) | ${Object.entries(result.otherAnswers).map(([k, v]) => `${k}: ${v}`).join(', ') || 'none'} | ${result.servedWhileDraining} | ${result.connectionErrors} | ${result.notTerminal} | ${Object.entries(result.statuses).map(([k, v]) => `${k} ${v}`).join(', ')} | ${result.duplicates} | ${result.backlogAtTrafficEnd} | ${result.settled ? `${(result.deliveredWithinMs / 1000).toFixed(1)} s after the traffic` : `not all: ${result.notTerminal} still queued when the bench stopped waiting, ${(result.deliveredWithinMs / 1000).toFixed(1)} s after the traffic`} |`,
        '',
        `Delivery rate over the whole run: ${((result.acknowledged - result.notTerminal) / ((result.trafficMs + result.deliveredWithinMs) / 1000)).toFixed(1)} deliveries/s (deliveries ended ÷ time from the first request to the last one ending). "Lost" counts acknowledged events not stored or whose delivery ended other than in success; deliveries still queued are "not terminal", not lost.`,
        '',
        `Restarts: ${restarts}.`,
        ...(result.duplicatesExplained.length ? ['', 'Duplicates:', ...result.duplicatesExplained.map((d) => `- ${d}`)] : []),
      ].join('\n'),
    );
  } finally {
    await runStops(stops, (err) => process.stderr.write(`rolling bench: cleanup failed: ${String(err)}\n`));
  }
}
