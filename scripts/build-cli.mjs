// Bundles the client commands of `relay` (src/cli/relay.ts with RELAY_CLI_EDITION=client: login,
// logout, whoami, listen, …) and their few dependencies into packages/cli/dist/relay.js, one
// CommonJS file with no dependencies to install: `npm pack` in packages/cli gives the CLI package.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import { build } from 'rolldown';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'packages', 'cli', 'dist');
fs.rmSync(outDir, { recursive: true, force: true });

// The service's modules: relay.ts loads them only for service commands, which this edition leaves out.
const SERVICE_ONLY = /\/(server-commands|build-dashboard)(\.ts)?$/;
// Optional native speed-ups of ws, loaded in a try/catch: absent is fine.
const OPTIONAL = new Set(['bufferutil', 'utf-8-validate']);

await build({
  input: path.join(root, 'src', 'cli', 'relay.ts'),
  platform: 'node',
  tsconfig: path.join(root, 'tsconfig.runtime.json'),
  external: (id) => OPTIONAL.has(id) || SERVICE_ONLY.test(id),
  transform: { define: { 'process.env.RELAY_CLI_EDITION': JSON.stringify('client') } },
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
process.stdout.write(`wrote packages/cli/dist/relay.js (${(size / 1024).toFixed(0)} KiB)\n`);
