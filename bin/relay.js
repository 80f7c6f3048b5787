#!/usr/bin/env node
'use strict';
// The compiled tree from `npm run build` (dist/) when it is up to date: no source file or
// folder changed after it was built (NODE_ENV=production: whenever it exists). Otherwise the
// TypeScript sources run directly through @swc-node/register, so a fresh clone needs no build
// step and an edited checkout never runs stale output. docs/cli.md has the figures.
const path = require('node:path');
const fs = require('node:fs');

const root = path.join(__dirname, '..');
const compiled = path.join(root, 'dist', 'src', 'launcher', 'relay.js');
const SOURCES = ['src', 'workflows', 'activities', 'migrations', 'bench', 'packages/cli/src'];

/** Whether anything under `dir` (a .ts file, or the folder itself: an added or deleted file) is newer than `builtAt`. */
function changedSince(dir, builtAt) {
  let entries;
  try {
    if (fs.statSync(dir).mtimeMs > builtAt) return true;
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() ? changedSince(full, builtAt) : entry.name.endsWith('.ts') && fs.statSync(full).mtimeMs > builtAt) return true;
  }
  return false;
}

function compiledIsCurrent() {
  let builtAt;
  try {
    builtAt = fs.statSync(compiled).mtimeMs;
  } catch {
    return false;
  }
  return process.env.NODE_ENV === 'production' || !SOURCES.some((dir) => changedSince(path.join(root, dir), builtAt));
}

if (process.argv[2] !== 'bench' && compiledIsCurrent()) {
  require(compiled);
} else {
  process.env.SWC_NODE_PROJECT = path.join(root, 'tsconfig.runtime.json');
  require('@swc-node/register');
  require(path.join(root, 'src', 'launcher', 'relay.ts'));
}
