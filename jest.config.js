// The test tiers, one jest project each (README, "Day to day"):
// - unit (`*.test.ts`): nothing but Node — in-memory adapters, no servers, no processes;
// - integration (`*.int.test.ts`): real Kafka, Redis, a MongoDB-wire server and an SMTP sink,
//   only through the harness's global setup;
// - e2e (`*.e2e.test.ts` outside web/): whole processes (the stack, the bundled standalone);
//   they get the harness's servers too, because the distributed stack needs them;
// - browser (`web/**/*.e2e.test.ts`): the web app in Chromium against the bundled standalone;
// - chart (`tools/test/chart.test.ts`, the other helm-backed checks beside it, `*.chart.test.ts`):
//   the Helm chart and manifests against their schemas, offline.
// A `@jest-environment` docblock still picks a file's environment (e.g. jsdom in `web/`).
const swc = (tsx) => [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', tsx },
      target: 'es2022',
      ...(tsx ? { transform: { react: { runtime: 'automatic' } } } : {}),
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];
const transform = { '^.+\\.ts$': swc(false), '^.+\\.tsx$': swc(true) };
const roots = [
  '<rootDir>/packages',
  '<rootDir>/apps',
  '<rootDir>/services',
  '<rootDir>/gateway',
  '<rootDir>/proto',
  '<rootDir>/tools',
  '<rootDir>/web',
  '<rootDir>/load',
];
const common = {
  testEnvironment: 'node',
  transform,
  roots,
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
};
const harness = {
  globalSetup: '<rootDir>/packages/harness/src/jest/global-setup.ts',
  globalTeardown: '<rootDir>/packages/harness/src/jest/global-teardown.ts',
  slowTestThreshold: 30,
};
/** Checked with helm and kubectl-validate (tools/test/helm-support.ts). */
const chartTests = ['chart', 'components', 'skaffold'].map(
  (name) => `<rootDir>/tools/test/${name}.test.ts`,
);
const tiers = '\\.(int|e2e|chart)\\.test\\.tsx?$';

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['**/test/**/*.test.ts', '<rootDir>/web/**/*.test.{ts,tsx}'],
      testPathIgnorePatterns: ['/node_modules/', tiers, ...chartTests],
      // Browser APIs jsdom lacks (TextEncoder, matchMedia); a no-op outside jsdom.
      setupFiles: ['<rootDir>/web/test/setup-jsdom.ts'],
    },
    {
      ...common,
      ...harness,
      displayName: 'integration',
      testMatch: ['**/*.int.test.{ts,tsx}'],
      testPathIgnorePatterns: ['/node_modules/'],
    },
    {
      ...common,
      ...harness,
      displayName: 'e2e',
      testMatch: ['**/*.e2e.test.{ts,tsx}'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/web/'],
    },
    {
      ...common,
      // The web app's journeys in Chromium against the bundled standalone process: they need
      // no harness server, so they run beside the server tiers (tools/test-tiers.mjs).
      displayName: 'browser',
      testMatch: ['<rootDir>/web/**/*.e2e.test.{ts,tsx}'],
      testPathIgnorePatterns: ['/node_modules/'],
      slowTestThreshold: 30,
    },
    {
      ...common,
      displayName: 'chart',
      testMatch: [...chartTests, '**/*.chart.test.ts'],
      testPathIgnorePatterns: ['/node_modules/'],
    },
  ],
  testTimeout: 60_000,
  reporters: ['default', '<rootDir>/tools/jest-summary-reporter.js'],
};
