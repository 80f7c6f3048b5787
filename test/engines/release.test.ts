import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const release = require('../../scripts/release.js') as {
  VERSION_FILES: Array<[string, string[][]]>;
  CHART: string;
  chartVersions(text: string, version?: string): { found: string[]; text: string };
  jsonVersions(text: string, keys: string[][], version?: string): { found: unknown[]; text: string };
  dockerfileVersion(text: string, version?: string): { found: string | null; text: string };
  changelogRelease(text: string, version: string, date: string): { entries: string; text: string };
  changelogLatest(text: string): string | null;
  compareVersions(a: string, b: string): number;
};

const read = (root: string, file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const versionOf = (root: string) => (JSON.parse(read(root, 'package.json')) as { version: string }).version;

/** Issue 35 item 4: one version for the service, the CLI package and the image, a changelog, a licence, and a release script. */
describe('releases', () => {
  it('have one version: the service, the CLI package, both locks, the OpenAPI document, the image label and CHANGELOG.md agree', () => {
    const version = versionOf(REPO);
    for (const [file, keys] of release.VERSION_FILES) {
      const { found, text } = release.jsonVersions(read(REPO, file), keys);
      expect([file, found]).toEqual([file, keys.map(() => version)]);
      // The release rewrites these files as npm and `relay emit-schema` write them: nothing but the version changes.
      expect(text).toBe(read(REPO, file));
    }
    const image = release.dockerfileVersion(read(REPO, 'Dockerfile'));
    if (image.found !== null) expect(['Dockerfile', image.found]).toEqual(['Dockerfile', version]);
    expect(release.chartVersions(read(REPO, release.CHART)).found).toEqual([version, version]);
    expect(release.changelogLatest(read(REPO, 'CHANGELOG.md'))).toBe(version);
  });

  it('carry the Apache-2.0 licence that both package.json files name, the CLI package its own copy', () => {
    expect(read(REPO, 'LICENSE')).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004\s+http:\/\/www\.apache\.org\/licenses\/\s+TERMS AND CONDITIONS/);
    expect(read(REPO, 'LICENSE')).toContain('END OF TERMS AND CONDITIONS');
    expect(read(REPO, 'packages/cli/LICENSE')).toBe(read(REPO, 'LICENSE'));
    for (const file of ['package.json', 'packages/cli/package.json']) expect(JSON.parse(read(REPO, file)).license).toBe('Apache-2.0');
  });

  it('move [Unreleased] under the new version, and find the version label of a Dockerfile however it is written', () => {
    const changelog = '# Changelog\n\nIntro.\n\n## [Unreleased]\n\n### Fixed\n\n- a thing\n\n## [0.2.0] - 2026-11-27\n\n### Added\n\n- all\n';
    const moved = release.changelogRelease(changelog, '0.3.0', '2026-12-01');
    expect(moved.entries).toBe('### Fixed\n\n- a thing');
    expect(moved.text).toBe('# Changelog\n\nIntro.\n\n## [Unreleased]\n\n## [0.3.0] - 2026-12-01\n\n### Fixed\n\n- a thing\n\n## [0.2.0] - 2026-11-27\n\n### Added\n\n- all\n');
    expect(release.changelogLatest(moved.text)).toBe('0.3.0');
    expect(() => release.changelogRelease(moved.text, '0.4.0', '2026-12-02')).toThrow(/nothing under \[Unreleased\]/);

    const viaArg = 'FROM a AS build\nARG RELAY_VERSION=0.2.0\nFROM b\nARG RELAY_VERSION=0.2.0\nLABEL org.opencontainers.image.version="${RELAY_VERSION}" \\\n  org.opencontainers.image.revision=$RELAY_REVISION\n';
    expect(release.dockerfileVersion(viaArg).found).toBe('0.2.0');
    expect(release.dockerfileVersion(viaArg, '0.3.0').text).toBe(viaArg.replaceAll('RELAY_VERSION=0.2.0', 'RELAY_VERSION=0.3.0'));
    const literal = 'FROM b\nLABEL org.opencontainers.image.version=0.2.0 org.opencontainers.image.licenses=Apache-2.0\n';
    expect(release.dockerfileVersion(literal, '0.3.0')).toEqual({ found: '0.2.0', text: literal.replace('=0.2.0', '=0.3.0') });
    expect(release.dockerfileVersion('FROM b\n').found).toBeNull();

    expect(['0.2.0', '0.10.0', '0.3.0-rc.1', '0.3.0', '1.0.0'].sort(release.compareVersions)).toEqual(['0.2.0', '0.3.0-rc.1', '0.3.0', '0.10.0', '1.0.0']);
  });

  /**
   * The release script in a temporary clone of this checkout (its uncommitted changes committed there, the repository's
   * node_modules linked in): a dry run changes nothing; a release bumps every version, moves the changelog, commits,
   * builds, packs the CLI, prints the image commands where there is no podman, and tags; the real repository's tags are
   * untouched.
   */
  describe('the release script, in a temporary clone', () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-release-'));
    const clone = path.join(work, 'clone');
    const git = (args: string[], cwd = clone) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
    const env = { ...process.env, PODMAN: path.join(work, 'no-podman'), GIT_AUTHOR_NAME: 'Release Test', GIT_AUTHOR_EMAIL: 'release@test.invalid', GIT_COMMITTER_NAME: 'Release Test', GIT_COMMITTER_EMAIL: 'release@test.invalid' };
    const runRelease = (args: string[]) => spawnSync(process.execPath, [path.join(clone, 'scripts', 'release.js'), ...args], { cwd: clone, env, encoding: 'utf8', timeout: 600_000 });
    const realTags = () => git(['tag', '--list'], REPO);
    let tagsBefore: string;

    beforeAll(() => {
      tagsBefore = realTags();
      git(['clone', '--quiet', REPO, clone], work);
      // What this checkout has and its last commit has not (a test run while working on it): the same in the clone.
      const changed = [...git(['diff', '--name-only', 'HEAD'], REPO).split('\n'), ...git(['ls-files', '--others', '--exclude-standard'], REPO).split('\n')].filter(Boolean);
      for (const file of changed) {
        if (fs.existsSync(path.join(REPO, file))) fs.cpSync(path.join(REPO, file), path.join(clone, file));
        else fs.rmSync(path.join(clone, file), { force: true });
      }
      fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(clone, 'node_modules'));
      // A change to release: an entry under [Unreleased].
      const changelog = read(clone, 'CHANGELOG.md').replace('## [Unreleased]\n', '## [Unreleased]\n\n### Fixed\n\n- The release test\'s own entry.\n');
      fs.writeFileSync(path.join(clone, 'CHANGELOG.md'), changelog);
      git(['add', '-A']);
      git(['-c', 'user.name=Release Test', '-c', 'user.email=release@test.invalid', 'commit', '-q', '--allow-empty', '-m', 'working tree and an unreleased entry']);
    }, 120_000);
    afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

    it('refuses a version that is not above the current one, or a checkout with uncommitted changes', () => {
      const current = versionOf(clone);
      const same = runRelease([current]);
      expect(same.status).toBe(1);
      expect(same.stderr).toContain(`${current} is not above the current version ${current}`);
      fs.writeFileSync(path.join(clone, 'stray.txt'), 'x');
      try {
        const dirty = runRelease(['9.0.0']);
        expect(dirty.status).toBe(1);
        expect(dirty.stderr).toMatch(/uncommitted changes .*\n\?\? stray\.txt/);
      } finally {
        fs.rmSync(path.join(clone, 'stray.txt'));
      }
    });

    it('--dry-run prints every change and command and changes nothing', () => {
      const head = git(['rev-parse', 'HEAD']);
      const dry = runRelease(['9.1.0', '--dry-run']);
      expect(dry.stderr).toBe('');
      expect(dry.status).toBe(0);
      expect(dry.stdout).toContain(`Dry run: nothing is changed. Release ${versionOf(clone)} -> 9.1.0`);
      for (const [file] of release.VERSION_FILES) expect(dry.stdout).toMatch(new RegExp(`  ${file.replace('.', '\\.')} +[0-9.]+(, [0-9.]+)? -> 9\\.1\\.0`));
      expect(dry.stdout).toContain("The release test's own entry.");
      expect(dry.stdout).toContain('podman build --format docker -t webhook-relay:9.1.0 --build-arg RELAY_VERSION=9.1.0 --build-arg RELAY_REVISION=<the release commit> .   (printed, not run: no podman here)');
      expect(dry.stdout).toContain('git tag -a v9.1.0');
      expect(git(['status', '--porcelain'])).toBe('');
      expect(git(['rev-parse', 'HEAD'])).toBe(head);
      expect(git(['tag', '--list'])).toBe(tagsBefore);
    });

    it('bumps, moves the changelog, commits, builds, packs the CLI, prints the image commands and tags; the real tags stay as they were', () => {
      const today = new Date().toISOString().slice(0, 10);
      const unreleased = read(clone, 'CHANGELOG.md');
      const out = runRelease(['9.2.0']);
      expect(out.status).toBe(0);
      const commit = git(['rev-parse', 'HEAD']);
      expect(git(['log', '-1', '--format=%s'])).toBe('Release 9.2.0');
      expect(git(['rev-parse', 'v9.2.0^{commit}'])).toBe(commit);
      expect(git(['tag', '-l', '--format=%(contents)', 'v9.2.0'])).toContain("The release test's own entry.");
      expect(git(['status', '--porcelain'])).toBe('');
      expect(out.stdout).toContain(`podman build --format docker -t webhook-relay:9.2.0 --build-arg RELAY_VERSION=9.2.0 --build-arg RELAY_REVISION=${commit} .`);
      expect(out.stdout).toContain('git push origin HEAD v9.2.0');

      for (const [file, keys] of release.VERSION_FILES) expect([file, release.jsonVersions(read(clone, file), keys).found]).toEqual([file, keys.map(() => '9.2.0')]);
      expect(read(clone, release.CHART)).toMatch(/^version: 9\.2\.0\n(.*\n)*appVersion: "9\.2\.0"$/m);
      const changelog = read(clone, 'CHANGELOG.md');
      expect(changelog).toContain(`## [Unreleased]\n\n## [9.2.0] - ${today}\n\n### Fixed\n\n- The release test's own entry.\n`);
      expect(changelog).toBe(release.changelogRelease(unreleased, '9.2.0', today).text);
      expect(release.changelogLatest(changelog)).toBe('9.2.0');

      // Both relay commands name the release commit: the checkout's, and the packed CLI's (from its bundle, no checkout).
      const short = commit.slice(0, 12);
      const relay = (bin: string, cwd: string) => execFileSync(process.execPath, [bin, '--version'], { cwd, env: { ...env, NODE_ENV: 'production' }, encoding: 'utf8' }).trim();
      expect(relay(path.join(clone, 'bin', 'relay.js'), clone)).toBe(`9.2.0 (commit ${short})`);
      const tarball = path.join(clone, 'dist', 'release', 'webhook-relay-cli-9.2.0.tgz');
      execFileSync('tar', ['-xzf', tarball, '-C', work]);
      expect(relay(path.join(work, 'package', 'dist', 'relay.js'), work)).toBe(`9.2.0 (commit ${short})`);
      // Where there is no checkout (as in the image), the commit the build recorded.
      fs.renameSync(path.join(clone, '.git'), path.join(work, 'git-away'));
      try {
        expect(relay(path.join(clone, 'bin', 'relay.js'), clone)).toBe(`9.2.0 (commit ${short})`);
      } finally {
        fs.renameSync(path.join(work, 'git-away'), path.join(clone, '.git'));
      }
      expect(realTags()).toBe(tagsBefore);
    }, 600_000);
  });
});
