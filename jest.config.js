// Two projects: `unit` needs nothing but Node; `integration` (*.int.test.ts) gets real
// Kafka, Redis, a MongoDB-wire server and an SMTP sink from the harness's global setup.
const transform = {
  '^.+\\.tsx?$': [
    '@swc/jest',
    {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'commonjs' },
      sourceMaps: 'inline',
    },
  ],
};
const roots = [
  '<rootDir>/packages',
  '<rootDir>/services',
  '<rootDir>/gateway',
  '<rootDir>/proto',
  '<rootDir>/tools',
];
const common = {
  testEnvironment: 'node',
  transform,
  roots,
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['**/test/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '\\.int\\.test\\.ts$'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['**/test/**/*.int.test.ts'],
      testPathIgnorePatterns: ['/node_modules/'],
      globalSetup: '<rootDir>/packages/harness/src/jest/global-setup.ts',
      globalTeardown: '<rootDir>/packages/harness/src/jest/global-teardown.ts',
      slowTestThreshold: 30,
    },
  ],
  testTimeout: 60_000,
  reporters: ['default', '<rootDir>/tools/jest-summary-reporter.js'],
};
