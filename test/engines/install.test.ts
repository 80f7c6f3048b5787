import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';

const REPO = path.resolve(__dirname, '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { engines: { node: string } };
interface LockEntry {
  version?: string;
  engines?: { node?: string };
  optionalDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}
const lock = JSON.parse(fs.readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
const installed = Object.entries(lock.packages).filter(([key]) => key.startsWith('node_modules/'));

/** Every directory under node_modules that holds a package.json (scoped and nested ones too). */
function packageDirs(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.name.startsWith('@')) packageDirs(full, out);
    else if (fs.existsSync(path.join(full, 'package.json'))) {
      out.push(full);
      if (fs.existsSync(path.join(full, 'node_modules'))) packageDirs(path.join(full, 'node_modules'), out);
    }
  }
  return out;
}

/** The `.node` binaries under `dir` built for this machine (Temporal ships every platform's in one package). */
function nativeBinaries(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) nativeBinaries(full, out);
    else if (entry.name.endsWith('.node')) out.push(full);
  }
  return out;
}

describe('the install (docs/benchmarks.md: install figures)', () => {
  it('the lock holds every platform’s prebuilt binary of each native package, so `npm ci` works on any of them', () => {
    const missing: string[] = [];
    for (const [key, entry] of installed) {
      const prefix = key.slice(0, key.lastIndexOf('node_modules/') + 'node_modules/'.length);
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (!lock.packages[prefix + name] && !lock.packages[`node_modules/${name}`]) missing.push(`${name} (of ${key})`);
      }
    }
    expect(missing).toEqual([]);
    for (const name of ['@swc/core-darwin-arm64', '@swc/core-linux-arm64-gnu', '@node-rs/argon2-darwin-arm64', '@node-rs/argon2-linux-arm64-gnu', '@rolldown/binding-darwin-arm64']) {
      expect(lock.packages).toHaveProperty([`node_modules/${name}`]);
    }
  });

  it('no package is installed on every platform while built for one (npm ci refuses it elsewhere: EBADPLATFORM)', () => {
    // A platform's binary belongs in the lock as an optional dependency of its parent, never as a required package.
    const pinned = installed.filter(([, entry]) => (entry as { os?: string[]; cpu?: string[]; optional?: boolean }).optional !== true)
      .filter(([, entry]) => (entry as { os?: string[] }).os || (entry as { cpu?: string[] }).cpu)
      .map(([key]) => key);
    expect(pinned).toEqual([]);
  });

  it('every package’s Node range covers the one package.json states (no EBADENGINE on a supported Node)', () => {
    const narrower = installed
      .filter(([, entry]) => entry.engines?.node && !semver.subset(manifest.engines.node, entry.engines.node))
      .map(([key, entry]) => `${key.replace(/^.*node_modules\//, '')}@${entry.version}: ${entry.engines!.node}`);
    expect(narrower).toEqual([]);
  });

  it('the CLI package states the service’s Node range (package.json and its lock), and its bundled dependencies cover it', () => {
    const cli = path.join(REPO, 'packages', 'cli');
    const cliManifest = JSON.parse(fs.readFileSync(path.join(cli, 'package.json'), 'utf8')) as { engines?: { node?: string } };
    const cliLock = JSON.parse(fs.readFileSync(path.join(cli, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
    expect([cliManifest.engines?.node, cliLock.packages[''].engines?.node]).toEqual([manifest.engines.node, manifest.engines.node]);
    const narrower = Object.entries(cliLock.packages)
      .filter(([key, entry]) => key.startsWith('node_modules/') && entry.engines?.node && !semver.subset(manifest.engines.node, entry.engines.node))
      .map(([key, entry]) => `${key.replace(/^.*node_modules\//, '')}@${entry.version}: ${entry.engines!.node}`);
    expect(narrower).toEqual([]);
  });

  it('nothing compiles at install: no package runs node-gyp or downloads a binary from an install script', () => {
    const compiling: string[] = [];
    for (const dir of packageDirs(path.join(REPO, 'node_modules'))) {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; scripts?: Record<string, string> };
      const scripts = ['preinstall', 'install', 'postinstall'].map((s) => pkg.scripts?.[s] ?? '').join(' ');
      if (/node-gyp|prebuild-install|node-pre-gyp|cmake-js/.test(scripts)) compiling.push(`${pkg.name}: ${scripts.trim()}`);
      // npm runs `node-gyp rebuild` by itself for a package with a binding.gyp and no install script.
      else if (!pkg.scripts?.install && !pkg.scripts?.preinstall && fs.existsSync(path.join(dir, 'binding.gyp'))) compiling.push(`${pkg.name}: binding.gyp`);
    }
    expect(compiling).toEqual([]);
  });

  it('every native module installed for this machine loads', () => {
    const platform = `${process.platform}-${process.arch}`;
    const temporalTarget = { 'linux-x64': 'x86_64-unknown-linux-gnu', 'linux-arm64': 'aarch64-unknown-linux-gnu', 'darwin-arm64': 'aarch64-apple-darwin', 'darwin-x64': 'x86_64-apple-darwin' }[platform];
    const binaries = nativeBinaries(path.join(REPO, 'node_modules')).filter((file) => !file.includes('/core-bridge/releases/') || file.includes(`/${temporalTarget}/`));
    expect(binaries.map((file) => path.relative(REPO, file))).toEqual(expect.arrayContaining([expect.stringMatching(/^node_modules\/@node-rs\/argon2-/), expect.stringMatching(/core-bridge/)]));
    // In a child: a binary that fails to load must not take the test process with it.
    const script = `for (const file of JSON.parse(process.argv[1])) { const m = { exports: {} }; process.dlopen(m, file); }; console.log('loaded')`;
    expect(execFileSync(process.execPath, ['-e', script, JSON.stringify(binaries)], { encoding: 'utf8' }).trim()).toBe('loaded');
  });
});
