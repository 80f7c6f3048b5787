#!/usr/bin/env node
'use strict';
// `relay` in a checkout runs the compiled service, dist/current (docs/internals/architecture.md "Compiled starts and the build"): built once, on the
// first start after a source changed (scripts/build-service.js: @swc/core, a few seconds, one process at a time), never
// transpiled at each start. NODE_ENV=production runs the build as it is (`npm run build` made it; the image has no
// compiler). `relay bench` runs bench/ from its TypeScript sources (benches reach into test/, which is not built).
const path = require('node:path');

const root = path.join(__dirname, '..');

if (process.argv[2] === 'bench') {
  process.env.SWC_NODE_PROJECT = path.join(root, 'tsconfig.runtime.json');
  require('@swc-node/register');
  require(path.join(root, 'src', 'launcher', 'relay.ts'));
} else {
  const build = require('../scripts/build-service.js');
  const entry = path.join(build.CURRENT, 'src', 'launcher', 'relay.js');
  if (process.env.NODE_ENV === 'production' && build.builtFrom() !== null) {
    require(entry);
  } else {
    build.ensureBuilt().then(
      () => require(entry),
      (err) => {
        process.stderr.write(`relay: could not build the service into dist/: ${err.message}\n`);
        process.exit(1);
      },
    );
  }
}
