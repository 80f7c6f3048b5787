#!/usr/bin/env node
'use strict';
// Cuts a release up to the point of publishing (docs/releasing.md):
//   npm run release -- <version> [--dry-run] [--no-image]
// 1. checks: a clean git checkout, a version above the current one, no tag v<version> yet, entries under
//    CHANGELOG.md's [Unreleased];
// 2. sets <version> everywhere the version lives (VERSION_FILES, the Dockerfile's version label) and moves the
//    [Unreleased] entries under "## [<version>] - <today>";
// 3. commits that as "Release <version>", then builds from that commit: the service and dashboard (npm run build),
//    the CLI package (npm pack in packages/cli, into dist/release/), the image (podman build, or the command printed
//    when podman is not there or with --no-image);
// 4. tags the commit v<version> (annotated, its CHANGELOG section as the message) and prints what publishing takes.
// --dry-run checks and prints all of that, changing nothing. Nothing is pushed or published.
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
/** JSON files holding the version, each with where in it (a path of keys). */
const VERSION_FILES = [
  ['package.json', [['version']]],
  ['package-lock.json', [['version'], ['packages', '', 'version']]],
  ['packages/cli/package.json', [['version']]],
  ['packages/cli/package-lock.json', [['version'], ['packages', '', 'version']]],
  ['schema/openapi.json', [['info', 'version']]],
];
const IMAGE = process.env.RELAY_IMAGE || 'webhook-relay';
const CHART = 'deploy/helm/relay/Chart.yaml';
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;

class ReleaseError extends Error {}

/** Every version a JSON file holds, by key path: read and (with `version`) set, keeping npm's formatting. */
function jsonVersions(text, keyPaths, version) {
  const doc = JSON.parse(text);
  const found = keyPaths.map((keys) => {
    let at = doc;
    for (const key of keys.slice(0, -1)) at = at?.[key];
    const last = keys[keys.length - 1];
    const before = at?.[last];
    if (version !== undefined && at && before !== undefined) at[last] = version;
    return before;
  });
  return { found, text: `${JSON.stringify(doc, null, 2)}\n` };
}

/**
 * The Dockerfile's `org.opencontainers.image.version` label: a literal, or `$NAME` / `${NAME}` read from `ARG NAME=<default>`.
 * Returns the version it gives a plain `podman build .` (null when it has no such label) and the text with it set.
 */
function dockerfileVersion(text, version) {
  const label = /org\.opencontainers\.image\.version=("?)(\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?|[^\s"\\]+)\1/.exec(text);
  if (!label) return { found: null, text };
  const name = label[3];
  if (!name) {
    const literal = label[2];
    return { found: literal, text: version === undefined ? text : text.replace(label[0], label[0].replace(literal, version)) };
  }
  const arg = new RegExp(`^(ARG\\s+${name}=)("?)([^\\s"]*)\\2[ \\t]*$`, 'gm');
  const defaults = [...text.matchAll(arg)].map((m) => m[3]);
  return {
    found: defaults.length ? defaults[defaults.length - 1] : '',
    text: version === undefined ? text : text.replace(arg, (_m, head, quote) => `${head}${quote}${version}${quote}`),
  };
}

/** The Helm chart's `version` and `appVersion` (deploy/helm/relay/Chart.yaml): the same as the relay's. */
function chartVersions(text, version) {
  const line = /^(version|appVersion): "?([^"\s]+)"?[ \t]*$/gm;
  const found = [...text.matchAll(line)].map((m) => m[2]);
  return { found, text: version === undefined ? text : text.replace(line, (_m, key) => `${key}: ${key === 'appVersion' ? `"${version}"` : version}`) };
}

/** CHANGELOG.md's [Unreleased] entries, and the text with them moved under `## [<version>] - <date>`. */
function changelogRelease(text, version, date) {
  const heading = /^## \[Unreleased\][^\n]*\n/m.exec(text);
  if (!heading) throw new ReleaseError('CHANGELOG.md has no "## [Unreleased]" section');
  const start = heading.index + heading[0].length;
  const next = text.slice(start).search(/^## \[/m);
  const end = next === -1 ? text.length : start + next;
  const entries = text.slice(start, end).trim();
  if (!entries) throw new ReleaseError('CHANGELOG.md: nothing under [Unreleased]; say what this release changes first');
  const released = `${text.slice(0, start)}\n## [${version}] - ${date}\n\n${entries}\n\n${text.slice(end)}`;
  return { entries, text: released.replace(/\n{3,}/g, '\n\n') };
}

/** The latest released version CHANGELOG.md names (its first "## [x.y.z]" heading), or null. */
function changelogLatest(text) {
  return /^## \[(\d[^\]]*)\]/m.exec(text)?.[1] ?? null;
}

/** Numeric comparison of two versions (pre-release parts sort before their release). */
function compareVersions(a, b) {
  const parse = (v) => {
    const m = SEMVER.exec(v);
    return { nums: [m[1], m[2], m[3]].map(Number), pre: m[4] ? m[4].slice(1) : null };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) if (x.nums[i] !== y.nums[i]) return x.nums[i] - y.nums[i];
  if (x.pre === y.pre) return 0;
  if (x.pre === null) return 1;
  if (y.pre === null) return -1;
  return x.pre < y.pre ? -1 : 1;
}

const git = (args, opts = {}) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts }).trim();

function read(file) {
  return fs.readFileSync(path.join(ROOT, file), 'utf8');
}

/** The files the release rewrites: [file, current text, released text], and what the checks found. */
function plan(version, date) {
  const current = JSON.parse(read('package.json')).version;
  const edits = [];
  const versions = {};
  for (const [file, keys] of VERSION_FILES) {
    const before = read(file);
    const { found, text } = jsonVersions(before, keys, version);
    versions[file] = found.join(', ');
    edits.push([file, before, text]);
  }
  if (fs.existsSync(path.join(ROOT, 'Dockerfile'))) {
    const before = read('Dockerfile');
    const { found, text } = dockerfileVersion(before, version);
    if (found !== null) {
      versions.Dockerfile = found;
      edits.push(['Dockerfile', before, text]);
    }
  }
  if (fs.existsSync(path.join(ROOT, CHART))) {
    const before = read(CHART);
    const { found, text } = chartVersions(before, version);
    versions[CHART] = found.join(', ');
    edits.push([CHART, before, text]);
  }
  const changelog = read('CHANGELOG.md');
  const { entries, text } = changelogRelease(changelog, version, date);
  edits.push(['CHANGELOG.md', changelog, text]);
  return { current, versions, edits, entries };
}

function checks(version, current) {
  const problems = [];
  if (!SEMVER.test(version)) problems.push(`"${version}" is not a version (x.y.z or x.y.z-pre.n)`);
  else if (compareVersions(version, current) <= 0) problems.push(`${version} is not above the current version ${current}`);
  try {
    git(['rev-parse', '--git-dir']);
  } catch {
    problems.push('not in a git checkout');
    return { problems, dirty: '' };
  }
  if (git(['tag', '--list', `v${version}`])) problems.push(`the tag v${version} exists already`);
  return { problems, dirty: git(['status', '--porcelain']) };
}

function run(command, args, opts = {}) {
  process.stdout.write(`$ ${[command, ...args].join(' ')}${opts.cwd ? `   (in ${path.relative(ROOT, opts.cwd) || '.'})` : ''}\n`);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', ...opts });
  if (result.error) throw new ReleaseError(`${command}: ${result.error.message}`);
  if (result.status !== 0) throw new ReleaseError(`${command} ${args.join(' ')} exited with ${result.status}`);
}

/** The podman to build with: PODMAN (a wrapper with this machine's flags, say), else podman on PATH; null when there is none. */
function podman() {
  const candidate = process.env.PODMAN || 'podman';
  const found = spawnSync(candidate, ['--version'], { stdio: 'ignore' });
  return found.error || found.status !== 0 ? null : candidate;
}

function imageBuild(version, commit) {
  const revision = ['--build-arg', `RELAY_VERSION=${version}`, '--build-arg', `RELAY_REVISION=${commit}`];
  return [
    // Docker's format: the OCI format has no HEALTHCHECK, and podman would drop the Dockerfile's.
    ['build', '--format', 'docker', '-t', `${IMAGE}:${version}`, ...revision, '.'],
    ['build', '--format', 'docker', '--target', 'cli', '-t', `${IMAGE}-cli:${version}`, ...revision, '.'],
  ];
}

function main(argv) {
  const args = argv.filter((a) => !a.startsWith('--'));
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  const unknown = [...flags].filter((f) => !['--dry-run', '--no-image'].includes(f));
  if (args.length !== 1 || unknown.length) throw new ReleaseError('usage: npm run release -- <version> [--dry-run] [--no-image]');
  const version = args[0].replace(/^v/, '');
  const dryRun = flags.has('--dry-run');
  const date = new Date().toISOString().slice(0, 10);

  const { current, versions, edits, entries } = plan(version, date);
  const { problems, dirty } = checks(version, current);
  const uncommitted = `uncommitted changes (a release is made from a commit: commit or stash them first):\n${dirty}`;
  if (dirty && !dryRun) problems.push(uncommitted);
  if (problems.length) throw new ReleaseError(problems.join('\n'));

  const out = (line = '') => process.stdout.write(`${line}\n`);
  out(`${dryRun ? 'Dry run: nothing is changed. ' : ''}Release ${current} -> ${version} (${date})`);
  if (dirty) out(`warning: ${uncommitted}`);
  out('');
  out('Version set in:');
  for (const [file, before, after] of edits) {
    if (file === 'CHANGELOG.md') continue;
    out(`  ${file.padEnd(32)} ${versions[file]} -> ${version}${before === after ? '   (already)' : ''}`);
  }
  out(`  ${'CHANGELOG.md'.padEnd(32)} [Unreleased] -> [${version}] - ${date}:`);
  out(entries.replace(/^/gm, '    '));
  out('');

  const tarballDir = path.join(ROOT, 'dist', 'release');
  const before = git(['rev-parse', 'HEAD']);
  const image = podman();
  const buildImage = image && !flags.has('--no-image');
  if (dryRun) {
    out('Would run:');
    out(`  git commit -m "Release ${version}" ${edits.map(([f]) => f).join(' ')}`);
    out('  npm run build');
    out(`  npm pack --pack-destination ${path.relative(ROOT, tarballDir)}   (in packages/cli)`);
    for (const cmd of imageBuild(version, '<the release commit>')) out(`  ${image ?? 'podman'} ${cmd.join(' ')}${buildImage ? '' : '   (printed, not run: ' + (image ? '--no-image' : 'no podman here') + ')'}`);
    out(`  git tag -a v${version}`);
    return;
  }

  try {
    for (const [file, , after] of edits) fs.writeFileSync(path.join(ROOT, file), after);
    git(['add', '--', ...edits.map(([f]) => f)]);
    git(['commit', '-q', '-m', `Release ${version}`, '-m', entries]);
    const commit = git(['rev-parse', 'HEAD']);
    out(`committed ${commit.slice(0, 12)} "Release ${version}"`);

    run('npm', ['run', 'build']);
    fs.rmSync(tarballDir, { recursive: true, force: true });
    fs.mkdirSync(tarballDir, { recursive: true });
    run('npm', ['pack', '--pack-destination', tarballDir], { cwd: path.join(ROOT, 'packages', 'cli') });
    const tarball = fs.readdirSync(tarballDir).find((f) => f.endsWith('.tgz'));

    const images = imageBuild(version, commit);
    if (buildImage) for (const cmd of images) run(image, cmd);
    git(['tag', '-a', `v${version}`, '-m', `webhook relay ${version}\n\n${entries}`]);

    out('');
    out(`Release ${version} is ready, not published: commit ${commit.slice(0, 12)}, tag v${version}, dist/release/${tarball}${buildImage ? `, images ${IMAGE}:${version} and ${IMAGE}-cli:${version}` : ''}.`);
    if (!buildImage) {
      out(`The image was not built (${image ? '--no-image' : 'no podman here'}); build it from this commit with:`);
      for (const cmd of images) out(`  podman ${cmd.join(' ')}`);
    }
    out('To publish:');
    out(`  git push origin HEAD v${version}`);
    out(`  npm publish dist/release/${tarball} --access public`);
    out(`  podman push ${IMAGE}:${version} <registry>/${IMAGE}:${version}   (and ${IMAGE}-cli:${version})`);
  } catch (err) {
    process.stderr.write(`\nThe release stopped. To undo it: git reset --hard ${before}${git(['tag', '--list', `v${version}`]) ? ` && git tag -d v${version}` : ''}\n`);
    throw err;
  }
}

module.exports = { VERSION_FILES, CHART, jsonVersions, dockerfileVersion, chartVersions, changelogRelease, changelogLatest, compareVersions };

if (require.main === module) {
  try {
    main(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`release: ${err instanceof ReleaseError ? err.message : err.stack}\n`);
    process.exit(1);
  }
}
