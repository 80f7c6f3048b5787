import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dashboardStaleness } from './build-dashboard';

/** A package root with the dashboard's inputs, all written an hour ago, and a build (index.html) from now. */
function fixture(): { root: string; out: string; at: (file: string, secondsAgo: number) => void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-dashboard-stale-'));
  const at = (file: string, secondsAgo: number) => {
    const when = new Date(Date.now() - secondsAgo * 1000);
    fs.utimesSync(path.join(root, file), when, when);
  };
  const files = ['dashboard/src/pages/events.tsx', 'dashboard/src/main.tsx', 'dashboard/index.html', 'dashboard/vite.config.mts', 'packages/cli/src/shared/outcomes.ts', 'package-lock.json'];
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), '');
  }
  for (const file of [...files, 'dashboard/src/pages', 'dashboard/src', 'packages/cli/src/shared']) at(file, 3600);
  const out = path.join(root, 'dashboard', 'dist');
  fs.mkdirSync(out);
  fs.writeFileSync(path.join(out, 'index.html'), '<!doctype html>');
  return { root, out, at };
}

describe('dashboardStaleness (npm start rebuilds the dashboard when its sources changed)', () => {
  let f: ReturnType<typeof fixture>;
  beforeEach(() => {
    f = fixture();
  });
  afterEach(() => fs.rmSync(f.root, { recursive: true, force: true }));

  it('is null while the build is newer than every input', () => {
    expect(dashboardStaleness(f.out, f.root)).toBeNull();
  });

  it('says the dashboard is not built when index.html is missing', () => {
    fs.rmSync(path.join(f.out, 'index.html'));
    expect(dashboardStaleness(f.out, f.root)).toBe('it is not built yet');
  });

  it('names the input that changed after the build: an edited page, a shared module, the lock, the build settings', () => {
    f.at('dashboard/dist/index.html', 60);
    for (const [file, input] of [
      ['dashboard/src/pages/events.tsx', 'dashboard/src'],
      ['packages/cli/src/shared/outcomes.ts', 'packages/cli/src/shared'],
      ['package-lock.json', 'package-lock.json'],
      ['dashboard/vite.config.mts', 'dashboard/vite.config.mts'],
    ]) {
      f.at(file, 0);
      expect(dashboardStaleness(f.out, f.root)).toBe(`${input} changed since it was built`);
      f.at(file, 3600);
      expect(dashboardStaleness(f.out, f.root)).toBeNull();
    }
  });

  it('sees a deleted or added source file (its folder changes) even when no file is newer', () => {
    f.at('dashboard/dist/index.html', 60);
    fs.rmSync(path.join(f.root, 'dashboard/src/main.tsx'));
    expect(dashboardStaleness(f.out, f.root)).toBe('dashboard/src changed since it was built');
    f.at('dashboard/src', 3600);
    fs.writeFileSync(path.join(f.root, 'dashboard/src/pages/new.tsx'), '');
    f.at('dashboard/src/pages/new.tsx', 3600);
    expect(dashboardStaleness(f.out, f.root)).toBe('dashboard/src changed since it was built');
  });
});
