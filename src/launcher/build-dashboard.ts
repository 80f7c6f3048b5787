import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { dashboardDir, packageRoot } from '../http/dashboard';

/** What the built dashboard is made of, relative to the package root: its sources, what they import from outside dashboard/, its build settings and dependencies. */
const DASHBOARD_INPUTS = ['dashboard/src', 'dashboard/index.html', 'dashboard/vite.config.mts', 'packages/cli/src/shared', 'package-lock.json'];

/** The newest modification time under `file` (folders count: adding, deleting or renaming a file changes theirs); 0 when absent. */
function newestMtime(file: string): number {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of fs.readdirSync(file)) newest = Math.max(newest, newestMtime(path.join(file, entry)));
  return newest;
}

/**
 * Why the dashboard in `dir` needs building, or null when it is current: its index.html is missing, or one of its
 * inputs changed after it was built (a `git pull`, an edit). One stat per source file: a few milliseconds.
 */
export function dashboardStaleness(dir: string, root = packageRoot()): string | null {
  let builtAt: number;
  try {
    builtAt = fs.statSync(path.join(dir, 'index.html')).mtimeMs;
  } catch {
    return 'it is not built yet';
  }
  const changed = DASHBOARD_INPUTS.find((input) => newestMtime(path.join(root, input)) > builtAt);
  return changed ? `${changed} changed since it was built` : null;
}

/** Runs Vite's build (`npm run build:dashboard`); with ifStale, only when the build is missing or older than its sources. */
export function buildDashboard(ifStale: boolean): void {
  const dir = dashboardDir(process.env.RELAY_DASHBOARD_DIR);
  const reason = ifStale ? dashboardStaleness(dir) : 'asked to';
  if (reason === null) return;
  const vite = path.join(packageRoot(), 'node_modules', 'vite', 'bin', 'vite.js');
  if (ifStale && !fs.existsSync(vite)) {
    // A production install without devDependencies: start with the dashboard as it is (or none) rather than not at all.
    process.stderr.write(`relay: the dashboard needs building (${reason}) but Vite is not installed; the service starts with the dashboard as it is (npm run build)\n`);
    return;
  }
  if (ifStale) process.stderr.write(`relay: building the dashboard: ${reason}\n`);
  const viteConfig = path.join(packageRoot(), 'dashboard', 'vite.config.mts');
  // NODE_ENV=production whatever the caller's (jest sets `test`): otherwise React's development build ships.
  const result = spawnSync(process.execPath, [vite, 'build', '--config', viteConfig, '--outDir', dir], { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (result.status !== 0) throw new Error(`dashboard build failed (exit ${result.status})`);
}
