#!/usr/bin/env node
'use strict';
// Production (NODE_ENV=production) runs the compiled tree from `npm run build`;
// everywhere else the TypeScript sources run directly through @swc-node/register,
// so a fresh clone needs no build step and never runs stale output.
const path = require('node:path');
const fs = require('node:fs');

const compiled = path.join(__dirname, '..', 'dist', 'src', 'cli', 'relay.js');
if (process.env.NODE_ENV === 'production' && fs.existsSync(compiled)) {
  require(compiled);
} else {
  process.env.SWC_NODE_PROJECT = path.join(__dirname, '..', 'tsconfig.runtime.json');
  require('@swc-node/register');
  require(path.join(__dirname, '..', 'src', 'cli', 'relay.ts'));
}
