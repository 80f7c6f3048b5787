import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';

/**
 * The client stands alone (docs/internals/cli-tunnel.md "The CLI package"): packages/cli/src imports only its own files, Node's
 * built-ins and the package's own devDependencies (bundled into dist/relay.js), never the service's code.
 * shared/ is what the service imports from the client (wire types, limits, ids): Node's built-ins only, so the
 * service loads no client dependency through it.
 */
const CLI_ROOT = path.resolve(__dirname, '..');
const SRC = path.join(CLI_ROOT, 'src');
const SHARED = path.join(SRC, 'shared');
const cliManifest = JSON.parse(fs.readFileSync(path.join(CLI_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string>; dependencies?: unknown };
const rootManifest = JSON.parse(fs.readFileSync(path.join(CLI_ROOT, '..', '..', 'package.json'), 'utf8')) as Record<'dependencies' | 'devDependencies', Record<string, string>>;
const builtins = new Set(builtinModules);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

/** Every module specifier of `import … from`, `export … from`, `import('…')` and `require('…')`. */
function specifiers(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;'"]*?from\s*'([^']+)'|(?:^|\n)\s*import\s+'([^']+)'|\b(?:require|import)\(\s*'([^']+)'\s*\)/g)];
  return found.map((m) => m[1] ?? m[2] ?? m[3]);
}

const packageName = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);

describe('the CLI package’s imports', () => {
  const files = sourceFiles(SRC).filter((f) => !f.endsWith('.test.ts'));

  it('finds the client’s modules', () => {
    expect(files.map((f) => path.relative(SRC, f))).toEqual(expect.arrayContaining(['relay.ts', 'listen.command.ts', 'shared/wire.ts']));
  });

  it('reach nothing outside packages/cli/src but Node’s built-ins and the package’s own devDependencies', () => {
    const outside: string[] = [];
    for (const file of files) {
      for (const spec of specifiers(file)) {
        const where = `${path.relative(CLI_ROOT, file)}: ${spec}`;
        if (spec.startsWith('.')) {
          const target = path.resolve(path.dirname(file), spec);
          if (!target.startsWith(SRC + path.sep)) outside.push(where);
          else if (file.startsWith(SHARED + path.sep) && !target.startsWith(SHARED + path.sep)) outside.push(`${where} (shared/ imports only shared/)`);
        } else if (spec.startsWith('node:') || builtins.has(spec)) {
          continue;
        } else if (file.startsWith(SHARED + path.sep)) {
          outside.push(`${where} (shared/ imports only Node's built-ins)`);
        } else if (!cliManifest.devDependencies[packageName(spec)]) {
          outside.push(`${where} (not a devDependency of packages/cli)`);
        }
      }
    }
    expect(outside).toEqual([]);
  });

  it('bundles its dependencies: none to install, each at the version the service uses', () => {
    expect(cliManifest.dependencies).toBeUndefined();
    for (const [name, version] of Object.entries(cliManifest.devDependencies)) {
      expect([name, rootManifest.dependencies[name] ?? rootManifest.devDependencies[name]]).toEqual([name, version]);
    }
  });
});
