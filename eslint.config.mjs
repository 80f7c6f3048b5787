import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'dashboard/dist/', 'packages/cli/dist/', 'packages/cli/node_modules/', 'coverage/', '.relay/', 'workflow-bundle.js', 'migrations/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Decorator metadata (type-graphql, MikroORM) reads parameter types at run time: those imports are values.
    languageOptions: { parserOptions: { emitDecoratorMetadata: true, experimentalDecorators: true } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
    },
  },
  {
    files: ['test/**/*.ts', '**/*.test.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', fetch: 'readonly', AbortSignal: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The client CLI stands alone (packages/cli): nothing of the service's code (packages/cli/src/package-imports.test.ts checks every import).
    files: ['packages/cli/src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../../*', '**/src/*/**', '!./**', '!../shared/*'], message: 'The client CLI imports nothing of the service: move what both need to packages/cli/src/shared.' }] },
      ],
    },
  },
  {
    // Workflow code is replayed deterministically inside Temporal's sandbox:
    // no Node built-ins, no I/O libraries, and activities only as types.
    files: ['workflows/**/*.ts'],
    ignores: ['workflows/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Workflows must be deterministic: do I/O in an activity.' })),
          patterns: [
            { group: ['../activities', '../activities/*', '**/activities/**'], allowTypeImports: true, message: 'Import activities as types only (import type).' },
            { group: ['**/src/**', 'pg', 'undici', '@mikro-orm/*', 'koa', 'jsonata', 'nunjucks'], allowTypeImports: true, message: 'Workflows must not import I/O code.' },
          ],
        },
      ],
    },
  },
);
