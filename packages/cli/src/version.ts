import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The commit the CLI package was bundled from, written in by its bundler (packages/cli/scripts/build.mjs); absent elsewhere. */
declare const __RELAY_COMMIT__: string | undefined;

/** The folder of the nearest package.json above `from`: the service's in a checkout or its dist/, the CLI package's once bundled. */
function packageRoot(from: string): string | null {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

/** The version in the nearest package.json above this file (docs/cli.md): one version for the service, the CLI and the image. */
export function relayVersion(from = __dirname): string {
  const root = packageRoot(from);
  try {
    return (JSON.parse(fs.readFileSync(path.join(root ?? from, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** The commit the service's build recorded (scripts/build-service.js writes BUILD.json at the top of each build). */
function builtCommit(from: string, root: string | null): string | undefined {
  for (let dir = from; dir !== root && path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    try {
      return (JSON.parse(fs.readFileSync(path.join(dir, 'BUILD.json'), 'utf8')) as { commit?: string }).commit || undefined;
    } catch {
      // Not here: one folder up.
    }
  }
  return undefined;
}

/** HEAD of the git checkout holding `root` (git finds it upward); none for an installed package. */
function checkoutHead(root: string): string | undefined {
  if (root.split(path.sep).includes('node_modules')) return undefined;
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The git commit this relay is: the one its bundler wrote into the CLI package; in a git checkout, HEAD (a build
 * there is redone only when sources change, so what it recorded can predate a later commit); else the one the
 * service's build recorded (the image, a copied build); "unknown" when none says. Read only for `--version`.
 */
export function relayCommit(from = __dirname): string {
  if (typeof __RELAY_COMMIT__ === 'string' && __RELAY_COMMIT__) return __RELAY_COMMIT__;
  const root = packageRoot(from);
  return (root && checkoutHead(root)) ?? builtCommit(from, root) ?? 'unknown';
}

/** What `relay --version` prints: `0.2.0 (commit 4c32281a7b1f)`. */
export function versionLine(from = __dirname): string {
  const commit = relayCommit(from);
  return `${relayVersion(from)} (commit ${commit === 'unknown' ? commit : commit.slice(0, 12)})`;
}
