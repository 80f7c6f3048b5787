import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { saveFigures, writeBenchSection } from './bench-output';

/**
 * Start-up of the `relay` command: wall and CPU time of `relay --help`, run `--runs` times each (median and 90th
 * percentile), for the CLI package as a user gets it (packed, installed with `npm install -g` into an empty prefix)
 * and for the checkout's `node bin/relay.js` (the compiled dist/current, built first if a source changed), beside
 * `node -e ''`. Targets: the package at most 150 ms and the checkout at most 300 ms over bare node (medians).
 * CPU time is the steadier figure on a shared, busy machine; the load average is recorded.
 *
 *   node bin/relay.js bench cli [--runs 15]
 *
 * Writes bench/results/cli.json and the `## relay start-up` section of docs/benchmarks.md.
 */

const REPO = path.resolve(__dirname, '..');

interface Row {
  name: string;
  runs: number;
  wall_ms_median: number;
  wall_ms_p90: number;
  cpu_ms_median: number;
  cpu_ms_p90: number;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))]);
}

/** Runs `node <args>` under /usr/bin/time: wall and user+system CPU of the whole process. */
function measure(name: string, args: string[], runs: number, env: NodeJS.ProcessEnv = process.env): Row {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = spawnSync('/usr/bin/time', ['-f', 'TIMES %e %U %S', process.execPath, ...args], { cwd: REPO, env, encoding: 'utf8' });
    if (out.status !== 0) throw new Error(`${name} failed: ${out.stderr}`);
    const [, e, u, s] = out.stderr.match(/TIMES ([\d.]+) ([\d.]+) ([\d.]+)/)!;
    wall.push(Number(e) * 1000);
    cpu.push((Number(u) + Number(s)) * 1000);
  }
  return { name, runs, wall_ms_median: percentile(wall, 0.5), wall_ms_p90: percentile(wall, 0.9), cpu_ms_median: percentile(cpu, 0.5), cpu_ms_p90: percentile(cpu, 0.9) };
}

/** Packs packages/cli and installs the tarball into an empty prefix, as a user would: the installed `relay`. */
function installedPackage(work: string): string {
  const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: path.join(REPO, 'packages', 'cli'), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const tarball = path.join(work, (JSON.parse(packed.slice(packed.indexOf('[\n'))) as Array<{ filename: string }>)[0].filename);
  const prefix = path.join(work, 'prefix');
  execFileSync('npm', ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tarball], { stdio: 'ignore' });
  return fs.realpathSync(path.join(prefix, 'bin', 'relay'));
}

export async function main(args: string[]): Promise<void> {
  const i = args.indexOf('--runs');
  const runs = i >= 0 ? Number(args[i + 1]) : 15;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-bench-cli-'));
  try {
    const packaged = installedPackage(work);
    // Once first: a source changed since the last build makes this start build dist/ (not what is measured).
    execFileSync(process.execPath, [path.join(REPO, 'bin', 'relay.js'), '--version'], { stdio: 'ignore' });
    const loadBefore = os.loadavg()[0];
    const rows = [
      measure("node -e ''", ['-e', ''], runs),
      measure('CLI package (npm install -g): relay --help', [packaged, '--help'], runs),
      measure('checkout: node bin/relay.js --help', [path.join(REPO, 'bin', 'relay.js'), '--help'], runs),
    ];
    const [bare, pkg, checkout] = rows;
    const over = (row: Row) => row.wall_ms_median - bare.wall_ms_median;
    const targets = [
      { name: 'CLI package --help over bare node (median wall)', ms: over(pkg), target_ms: 150, met: over(pkg) <= 150 },
      { name: 'checkout --help over bare node (median wall)', ms: over(checkout), target_ms: 300, met: over(checkout) <= 300 },
    ];
    const figures = { measured_at: new Date().toISOString(), node: process.version, cores: os.cpus().length, load_average: [loadBefore, os.loadavg()[0]].map((l) => Number(l.toFixed(1))), rows, targets };
    saveFigures(path.join(REPO, 'bench', 'results', 'cli.json'), figures);
    const table = [
      '| command | wall median (ms) | wall p90 (ms) | CPU median (ms) | CPU p90 (ms) |',
      '|---|---|---|---|---|',
      ...rows.map((r) => `| ${r.name} | ${r.wall_ms_median} | ${r.wall_ms_p90} | ${r.cpu_ms_median} | ${r.cpu_ms_p90} |`),
    ].join('\n');
    const verdicts = targets.map((t) => `- ${t.name}: ${t.ms} ms (target ≤ ${t.target_ms} ms: ${t.met ? 'met' : 'not met'})`).join('\n');
    writeBenchSection(
      'cli-startup',
      `## relay start-up (\`npm run bench:cli\`)\n\n${runs} runs each, Node ${process.version}, ${figures.cores} cores.\n\n${table}\n\n${verdicts}\n\nBoth load commander alone for \`--help\` (each command's module is required when it runs); the checkout's \`bin/relay.js\` also checks that dist/current is built from the sources as they are (one stat per source file) before it runs it.`,
    );
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
