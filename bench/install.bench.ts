import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { saveFigures, writeBenchSection } from './bench-output';

/**
 * What installing the service costs, as a user's fresh clone pays it: `npm ci` with an empty npm cache (cold: every
 * package downloaded from the registry) and again with that cache filled (warm), the packages it adds, then the
 * production install (`npm ci --omit=dev`) and its weight with the built dist/.
 *
 *   node bin/relay.js bench install [--rev <commit>] [--no-save]
 *
 * Clones the committed HEAD (or --rev) into a temporary folder. Writes bench/results/install.json and the
 * `## Install` section of docs/benchmarks.md (not with --no-save, e.g. for another commit).
 */

const REPO = path.resolve(__dirname, '..');

interface Install {
  seconds: number;
  packages: number;
}

function npmCi(dir: string, cache: string, extra: string[] = []): Install {
  fs.rmSync(path.join(dir, 'node_modules'), { recursive: true, force: true });
  const began = performance.now();
  const out = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--cache', cache, ...extra], { cwd: dir, encoding: 'utf8' });
  const seconds = Number(((performance.now() - began) / 1000).toFixed(1));
  if (out.status !== 0) throw new Error(`npm ci failed:\n${out.stderr}`);
  const added = out.stdout.match(/added (\d+) packages?/);
  return { seconds, packages: added ? Number(added[1]) : 0 };
}

function megabytes(dir: string): number {
  return Math.round(Number(execFileSync('du', ['-sk', dir], { encoding: 'utf8' }).split('\t')[0]) / 1024);
}

export async function main(args: string[]): Promise<void> {
  const r = args.indexOf('--rev');
  const rev = r >= 0 ? args[r + 1] : 'HEAD';
  const save = !args.includes('--no-save');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-bench-install-'));
  try {
    const clone = path.join(work, 'clone');
    execFileSync('git', ['clone', '--quiet', REPO, clone]);
    execFileSync('git', ['checkout', '--quiet', rev], { cwd: clone });
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: clone, encoding: 'utf8' }).trim();
    const cache = path.join(work, 'npm-cache');
    const loadBefore = os.loadavg()[0];
    const cold = npmCi(clone, cache);
    const warm = npmCi(clone, cache);
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: clone, encoding: 'utf8' }).trim();
    const full = megabytes(path.join(clone, 'node_modules'));
    const production = npmCi(clone, cache, ['--omit=dev']);
    const productionMb = megabytes(path.join(clone, 'node_modules'));
    // The compiled service as a production install runs it (the builder needs only production packages).
    let distMb: number | null = null;
    if (fs.existsSync(path.join(clone, 'scripts', 'build-service.js'))) {
      execFileSync(process.execPath, [path.join(clone, 'scripts', 'build-service.js')], { cwd: clone, stdio: 'ignore' });
      distMb = megabytes(path.join(clone, 'dist'));
    }
    const figures = {
      measured_at: new Date().toISOString(),
      commit,
      node: process.version,
      npm: execFileSync('npm', ['--version'], { encoding: 'utf8' }).trim(),
      cores: os.cpus().length,
      load_average: [loadBefore, os.loadavg()[0]].map((l) => Number(l.toFixed(1))),
      npm_ci_cold: cold,
      npm_ci_warm: warm,
      tree_clean_after_install: dirty === '',
      node_modules_mb: full,
      production: { ...production, node_modules_mb: productionMb, dist_mb: distMb },
    };
    if (!save) {
      process.stdout.write(JSON.stringify(figures, null, 2) + '\n');
      return;
    }
    saveFigures(path.join(REPO, 'bench', 'results', 'install.json'), figures);
    writeBenchSection(
      'install',
      [
        '## Install (`npm run bench:install`)',
        '',
        `A fresh clone, Node ${process.version}, npm ${figures.npm}, ${figures.cores} cores; cold: an empty npm cache (every package from the registry), warm: the same cache again.`,
        '',
        '| install | packages | time (s) | node_modules (MB) |',
        '|---|---|---|---|',
        `| \`npm ci\`, cold cache | ${cold.packages} | ${cold.seconds} | ${full} |`,
        `| \`npm ci\`, warm cache | ${warm.packages} | ${warm.seconds} | ${full} |`,
        `| \`npm ci --omit=dev\` (production), warm cache | ${production.packages} | ${production.seconds} | ${productionMb} |`,
        '',
        `The production install plus the built service (dist/, ${distMb} MB) is what \`relay api\` and \`relay worker\` run. \`git status\` after \`npm ci\`: ${figures.tree_clean_after_install ? 'clean' : 'dirty'}.`,
      ].join('\n'),
    );
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
