import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { saveFigures, writeMarkedSection } from './bench-output';

/**
 * Start-up of the `relay` command: wall and CPU time of `relay --help`, run `--runs` times each
 * (median and 90th percentile), for the standalone CLI package's bundle, for the checkout's
 * compiled dist/ and for its TypeScript sources through @swc-node/register, beside `node -e ''`.
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

export async function main(args: string[]): Promise<void> {
  const i = args.indexOf('--runs');
  const runs = i >= 0 ? Number(args[i + 1]) : 15;
  if (!fs.existsSync(path.join(REPO, 'packages', 'cli', 'dist', 'relay.js'))) execFileSync(process.execPath, [path.join(REPO, 'packages', 'cli', 'scripts', 'build.mjs')], { stdio: 'inherit' });
  const loadBefore = os.loadavg()[0];
  const rows = [
    measure("node -e ''", ['-e', ''], runs),
    measure('CLI package: relay --help', [path.join(REPO, 'packages', 'cli', 'dist', 'relay.js'), '--help'], runs),
    ...(fs.existsSync(path.join(REPO, 'dist', 'src', 'launcher', 'relay.js'))
      ? [measure('checkout, compiled dist/: relay --help', [path.join(REPO, 'dist', 'src', 'launcher', 'relay.js'), '--help'], runs)]
      : []),
    measure('checkout, TypeScript sources (@swc-node/register): relay --help', ['-r', '@swc-node/register', path.join(REPO, 'src', 'launcher', 'relay.ts'), '--help'], runs, {
      ...process.env,
      SWC_NODE_PROJECT: path.join(REPO, 'tsconfig.runtime.json'),
    }),
  ];
  const figures = { measured_at: new Date().toISOString(), node: process.version, cores: os.cpus().length, load_average: [loadBefore, os.loadavg()[0]].map((l) => Number(l.toFixed(1))), rows };
  saveFigures(path.join(REPO, 'bench', 'results', 'cli.json'), figures);
  const table = [
    '| command | wall median (ms) | wall p90 (ms) | CPU median (ms) | CPU p90 (ms) |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.name} | ${r.wall_ms_median} | ${r.wall_ms_p90} | ${r.cpu_ms_median} | ${r.cpu_ms_p90} |`),
  ].join('\n');
  writeMarkedSection(
    path.join(REPO, 'docs', 'benchmarks.md'),
    'cli-startup',
    `## relay start-up (\`npm run bench:cli\`)\n\n${runs} runs each, ${figures.measured_at}, Node ${process.version}, ${figures.cores} cores, load average ${figures.load_average.join(' → ')} (other engineers' runs share the machine: wall time follows the load, CPU time much less).\n\n${table}\n\nThe target is \`relay --help\` under 300 ms: the package's bundle and the compiled dist/ load commander alone (each command's module is required when it runs); the sources pay for compiling TypeScript on every run, which \`bin/relay.js\` avoids whenever dist/ is up to date (docs/cli.md).`,
    'Benchmarks',
  );
}
