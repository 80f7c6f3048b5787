// Bundles the relay client (src/relay.ts: login, logout, whoami, listen, trigger) and its few dependencies
// into dist/relay.js, one CommonJS file with no dependencies to install: `npm pack` in packages/cli gives
// the CLI package. Needs only this package's own devDependencies (`npm install` here), or the checkout's.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import { execFileSync } from 'node:child_process';
import { build } from 'rolldown';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// `relay --version` names the commit the package was bundled from: RELAY_BUILD_COMMIT when set (a build without a
// checkout, e.g. an image's), else the checkout's HEAD (as the service's build records it: scripts/build-service.js).
const commit = process.env.RELAY_BUILD_COMMIT || gitHead() || 'unknown';

function gitHead() {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).trim();
  } catch {
    return '';
  }
}
const outDir = path.join(root, 'dist');
fs.rmSync(outDir, { recursive: true, force: true });

// Optional native speed-ups of ws, loaded in a try/catch: absent is fine.
const OPTIONAL = new Set(['bufferutil', 'utf-8-validate']);

await build({
  input: path.join(root, 'src', 'relay.ts'),
  platform: 'node',
  tsconfig: path.join(root, 'tsconfig.json'),
  external: (id) => OPTIONAL.has(id),
  transform: { define: { __RELAY_COMMIT__: JSON.stringify(commit) } },
  output: {
    file: path.join(outDir, 'relay.js'),
    format: 'cjs',
    banner: '#!/usr/bin/env node',
    codeSplitting: false,
    minify: true,
  },
  logLevel: 'warn',
});
fs.chmodSync(path.join(outDir, 'relay.js'), 0o755);
const { size } = fs.statSync(path.join(outDir, 'relay.js'));
process.stdout.write(`wrote packages/cli/dist/relay.js (${(size / 1024).toFixed(0)} KiB, commit ${commit.slice(0, 12)})\n`);
