import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { dashboardDir, packageRoot } from '../http/dashboard';

/** Runs Vite's build (`npm run build:dashboard`); with ifMissing, only when index.html is absent. */
export function buildDashboard(ifMissing: boolean): void {
  const dir = dashboardDir(process.env.RELAY_DASHBOARD_DIR);
  if (ifMissing && fs.existsSync(path.join(dir, 'index.html'))) return;
  const vite = path.join(packageRoot(), 'node_modules', 'vite', 'bin', 'vite.js');
  if (ifMissing && !fs.existsSync(vite)) {
    // A production install without devDependencies: start without the dashboard rather than not at all.
    process.stderr.write('relay: the dashboard is not built and Vite is not installed; the API starts without it (npm run build)\n');
    return;
  }
  const viteConfig = path.join(packageRoot(), 'dashboard', 'vite.config.mts');
  // NODE_ENV=production whatever the caller's (jest sets `test`): otherwise React's development build ships.
  const result = spawnSync(process.execPath, [vite, 'build', '--config', viteConfig, '--outDir', dir], { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (result.status !== 0) throw new Error(`dashboard build failed (exit ${result.status})`);
}
