#!/usr/bin/env node
'use strict';
// Builds the service once into dist/ (docs/internals/architecture.md "Compiled starts and the build"): every TypeScript file of the sources
// transpiled by @swc/core (no type check: `npm run typecheck` does that), plus the pre-bundled workflow code, into
// dist/builds/<name>/, then dist/current is pointed at it with one atomic rename. Processes that start meanwhile wait
// for the lock and then run the new build; processes already running keep the build they started from.
// `node bin/relay.js …` runs it when a source changed since the last build; `npm run build` runs it directly.
const fs = require('node:fs');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { execFileSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const CURRENT = path.join(DIST, 'current');
const BUILDS = path.join(DIST, 'builds');
const LOCK = path.join(DIST, 'build.lock');
/** What the compiled service is made of (bench/ runs from its sources: it reaches into test/). */
const SOURCES = ['src', 'workflows', 'activities', 'migrations', 'packages/cli/src'];
/** Besides the sources, a change here makes a new build: settings, and the dependencies bundled into the workflow code. */
const INPUTS = ['package-lock.json', 'tsconfig.json', 'scripts/build-service.js'];
/** Builds kept beside the current one, for processes still running from them. */
const KEEP_BUILDS = 2;
/** A lock older than this is from a build that died (a build takes seconds). */
const STALE_LOCK_MS = 10 * 60_000;

const isSource = (name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts');

/** Calls `visit(full, stat)` for every source file and folder under `dir` (folders too: an added or deleted file changes them). */
function walk(dir, visit) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  visit(dir, true);
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, visit);
    else if (isSource(entry.name)) visit(full, false);
  }
}

/**
 * The state of the sources as one string: how many files and folders, and the newest modification time among them
 * and the INPUTS. Any edit, added, deleted or renamed file changes it; reading it costs one stat per file.
 */
function fingerprint(dirs = SOURCES) {
  let count = 0;
  let newest = 0;
  const see = (file) => {
    try {
      const { mtimeMs } = fs.statSync(file);
      count++;
      if (mtimeMs > newest) newest = mtimeMs;
    } catch {
      // Gone between the listing and the stat: the next start sees the change.
    }
  };
  for (const dir of dirs) walk(path.join(ROOT, dir), see);
  for (const file of INPUTS) see(path.join(ROOT, file));
  return `${count}:${Math.round(newest)}`;
}

/** The fingerprint the current build was made from, or null when there is none. */
function builtFrom() {
  try {
    return JSON.parse(fs.readFileSync(path.join(CURRENT, 'BUILD.json'), 'utf8')).sources;
  } catch {
    return null;
  }
}

const pidAlive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
};

/** Takes the build lock (a directory: mkdir is atomic), or returns false when another live process holds it. */
function tryLock() {
  fs.mkdirSync(DIST, { recursive: true });
  try {
    fs.mkdirSync(LOCK);
    fs.writeFileSync(path.join(LOCK, 'pid'), String(process.pid));
    return true;
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
  }
  let owner = 0;
  let since = Date.now();
  try {
    owner = Number(fs.readFileSync(path.join(LOCK, 'pid'), 'utf8'));
    since = fs.statSync(LOCK).mtimeMs;
  } catch {
    // Just released, or not written yet: try again shortly.
    return false;
  }
  if ((owner && !pidAlive(owner)) || Date.now() - since > STALE_LOCK_MS) {
    fs.rmSync(LOCK, { recursive: true, force: true });
    return tryLock();
  }
  return false;
}


function transpile(outDir) {
  const swc = require('@swc/core');
  const options = {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: true,
    swcrc: false,
    configFile: false,
  };
  let files = 0;
  for (const dir of SOURCES) {
    walk(path.join(ROOT, dir), (file, isDir) => {
      const out = path.join(outDir, path.relative(ROOT, file));
      if (isDir) return fs.mkdirSync(out, { recursive: true });
      const js = out.replace(/\.ts$/, '.js');
      const { code, map } = swc.transformFileSync(file, { ...options, sourceFileName: path.relative(path.dirname(js), file) });
      fs.writeFileSync(js, `${code}\n//# sourceMappingURL=${path.basename(js)}.map\n`);
      fs.writeFileSync(`${js}.map`, map);
      files++;
    });
  }
  return files;
}

/** The workflow code as the worker loads it (no bundling at each worker start); reused from the last build when workflows/ and the lock are unchanged. */
async function bundleWorkflows(outDir, previous) {
  const key = fingerprint(['workflows']);
  const target = path.join(outDir, 'workflow-bundle.js');
  if (previous && previous.workflows === key) {
    try {
      fs.copyFileSync(path.join(CURRENT, 'workflow-bundle.js'), target);
      return key;
    } catch {
      // Not there after all: bundle.
    }
  }
  const { bundleWorkflowCode } = require('@temporalio/worker');
  const { code } = await bundleWorkflowCode({ workflowsPath: path.join(outDir, 'workflows', 'index.js'), logger: quietLogger() });
  fs.writeFileSync(target, code);
  return key;
}

function quietLogger() {
  const noop = () => undefined;
  return { trace: noop, debug: noop, info: noop, warn: (m) => process.stderr.write(`relay build: ${m}\n`), error: (m) => process.stderr.write(`relay build: ${m}\n`), log: noop };
}

function previousBuild() {
  try {
    return JSON.parse(fs.readFileSync(path.join(CURRENT, 'BUILD.json'), 'utf8'));
  } catch {
    return null;
  }
}

/** Removes all but the newest KEEP_BUILDS builds that are not the current one. */
function pruneBuilds(current) {
  let names;
  try {
    names = fs.readdirSync(BUILDS);
  } catch {
    return;
  }
  const old = names
    .filter((name) => name !== current)
    .map((name) => ({ name, at: fs.statSync(path.join(BUILDS, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at)
    .slice(KEEP_BUILDS);
  for (const { name } of old) fs.rmSync(path.join(BUILDS, name), { recursive: true, force: true });
}

/**
 * The commit the build is made from, recorded in BUILD.json for `relay --version` where there is no checkout (an
 * image): RELAY_BUILD_COMMIT when set (an image build's context has no .git; it passes its revision so), else HEAD.
 */
function buildCommit() {
  if (process.env.RELAY_BUILD_COMMIT) return process.env.RELAY_BUILD_COMMIT;
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).trim() || null;
  } catch {
    return null;
  }
}

async function build(sources, log) {
  const began = Date.now();
  const name = `${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${process.pid}`;
  const outDir = path.join(BUILDS, name);
  fs.mkdirSync(outDir, { recursive: true });
  try {
    const files = transpile(outDir);
    const workflows = await bundleWorkflows(outDir, previousBuild());
    const commit = buildCommit();
    fs.writeFileSync(path.join(outDir, 'BUILD.json'), JSON.stringify({ sources, workflows, files, commit, built_at: new Date().toISOString() }) + '\n');
    // A real dist/current folder (an older layout) is moved aside: only a link can be replaced atomically.
    if (fs.existsSync(CURRENT) && !fs.lstatSync(CURRENT).isSymbolicLink()) fs.renameSync(CURRENT, path.join(BUILDS, `old-${name}`));
    const link = `${CURRENT}.${process.pid}`;
    fs.rmSync(link, { force: true });
    fs.symlinkSync(path.join('builds', name), link);
    fs.renameSync(link, CURRENT);
    log(`built ${files} files into dist/ in ${((Date.now() - began) / 1000).toFixed(1)} s`);
  } catch (err) {
    fs.rmSync(outDir, { recursive: true, force: true });
    throw err;
  }
  pruneBuilds(name);
}

/**
 * Makes sure dist/current is built from the sources as they are now: returns at once when it is, else builds once
 * (or waits while another process builds). `force` builds even when it is current.
 */
async function ensureBuilt({ force = false, log = (line) => process.stderr.write(`relay: ${line}\n`) } = {}) {
  let announced = false;
  for (;;) {
    const sources = fingerprint();
    if (!force && builtFrom() === sources) return;
    if (tryLock()) {
      try {
        // Another process may have finished a build between the check and the lock.
        if (!force && builtFrom() === fingerprint()) return;
        if (!announced) log(force ? 'building the service into dist/' : 'the sources changed since the last build: building the service into dist/ (once)');
        await build(sources, log);
        return;
      } finally {
        fs.rmSync(LOCK, { recursive: true, force: true });
      }
    }
    if (!announced) log('waiting for another process building the service into dist/');
    announced = true;
    force = false;
    await sleep(200);
  }
}

module.exports = { ensureBuilt, fingerprint, builtFrom, CURRENT };

if (require.main === module) {
  ensureBuilt({ force: process.argv.includes('--force') }).catch((err) => {
    process.stderr.write(`relay: the build failed: ${err.stack || err.message}\n`);
    process.exit(1);
  });
}
