import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../test/support/free-port';
import { saveFigures, writeBenchSection } from './bench-output';

/**
 * Start-up of the whole service as a user starts it: `npm start` (no DATABASE_URL / TEMPORAL_ADDRESS, so it starts
 * its embedded PostgreSQL and a Temporal dev server) until `/readyz` answers 200, on a data directory that a first,
 * unmeasured start made (the first start also creates the database and, after a source changed, builds dist/). Each
 * measured start is stopped with Ctrl+C (SIGINT to its process group) before the next. Target: at most 6 s (median).
 *
 *   node bin/relay.js bench start [--runs 5]
 *
 * Writes bench/results/start.json and the `## npm start` section of docs/benchmarks.md.
 */

const REPO = path.resolve(__dirname, '..');
const TARGET_MS = 6_000;

interface Started {
  child: ChildProcess;
  exited: Promise<void>;
  output(): string;
}

function npmStart(env: Record<string, string>): Started {
  const { DATABASE_URL: _db, TEMPORAL_ADDRESS: _t, ...inherited } = process.env;
  // Its own process group, as a terminal's job: Ctrl+C reaches npm and the service alike.
  const child = spawn('npm', ['start', '--silent'], { cwd: REPO, env: { ...inherited, NODE_ENV: 'development', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output, exited: new Promise((resolve) => child.once('exit', () => resolve())) };
}

/** Milliseconds from `began` to the first 200 of /readyz (polled every 50 ms). */
async function untilReady(started: Started, port: string, began: number): Promise<number> {
  const deadline = began + 180_000;
  while (performance.now() < deadline) {
    if (started.child.exitCode !== null) throw new Error(`npm start exited:\n${started.output()}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) return Math.round(performance.now() - began);
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`not ready within 180 s:\n${started.output()}`);
}

async function stop(started: Started): Promise<void> {
  process.kill(-started.child.pid!, 'SIGINT');
  const timer = setTimeout(() => process.kill(-started.child.pid!, 'SIGKILL'), 30_000);
  await started.exited;
  clearTimeout(timer);
}

async function startOnce(env: Record<string, string>): Promise<number> {
  const began = performance.now();
  const started = npmStart(env);
  try {
    return await untilReady(started, env.PORT, began);
  } finally {
    await stop(started);
  }
}

export async function main(args: string[]): Promise<void> {
  const i = args.indexOf('--runs');
  const runs = i >= 0 ? Number(args[i + 1]) : 5;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-bench-start-'));
  try {
    const env = {
      RELAY_DATA_DIR: dataDir,
      PORT: String(await freePort()),
      RELAY_PG_PORT: String(await freePort()),
      RELAY_TEMPORAL_PORT: String(await freePort()),
      RELAY_TEMPORAL_UI_PORT: String(await freePort()),
    };
    const first = await startOnce(env);
    const loadBefore = os.loadavg()[0];
    const times: number[] = [];
    for (let run = 0; run < runs; run++) times.push(await startOnce(env));
    const sorted = [...times].sort((a, b) => a - b);
    const median = sorted[Math.floor((sorted.length - 1) / 2)];
    const figures = {
      measured_at: new Date().toISOString(),
      node: process.version,
      cores: os.cpus().length,
      load_average: [loadBefore, os.loadavg()[0]].map((l) => Number(l.toFixed(1))),
      first_start_ms: first,
      runs: times,
      median_ms: median,
      target_ms: TARGET_MS,
      met: median <= TARGET_MS,
    };
    saveFigures(path.join(REPO, 'bench', 'results', 'start.json'), figures);
    writeBenchSection(
      'start',
      [
        '## npm start (`npm run bench:start`)',
        '',
        `\`npm start\` until \`/readyz\` answers 200, with the embedded PostgreSQL and the Temporal dev server it starts itself, on a data directory an earlier start made; ${runs} starts, Node ${process.version}, ${figures.cores} cores.`,
        '',
        `| starts | median (ms) | fastest (ms) | slowest (ms) | target |`,
        '|---|---|---|---|---|',
        `| ${runs} | ${median} | ${sorted[0]} | ${sorted[sorted.length - 1]} | ≤ ${TARGET_MS} ms: ${figures.met ? 'met' : 'not met'} |`,
        '',
        'Each start runs the compiled dist/current and the workflow code bundled with it (docs/internals/architecture.md "Compiled starts and the build"); nothing is transpiled or bundled at start.',
      ].join('\n'),
    );
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
