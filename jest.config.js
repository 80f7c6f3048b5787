/** @type {import('jest').Config} */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

module.exports = {
  testEnvironment: 'node',
  // oauth4webapi is published as ES modules only: swc turns it into CommonJS for jest, as Node's require does at run time.
  transform: { '^.+\\.ts$': swc, '/node_modules/oauth4webapi/.+\\.js$': swc },
  transformIgnorePatterns: ['/node_modules/(?!oauth4webapi/)'],
  roots: ['<rootDir>/src', '<rootDir>/test', '<rootDir>/workflows', '<rootDir>/activities', '<rootDir>/packages/cli/src'],
  testMatch: ['**/*.test.ts'],
  // Starts PostgreSQL and a Temporal dev server once per run (or uses DATABASE_URL / TEMPORAL_ADDRESS).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60_000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  maxWorkers: process.env.JEST_MAX_WORKERS || 2,
};
