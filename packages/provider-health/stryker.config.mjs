// Mutation testing of @keel/provider-health (`pnpm mutation` at the root; not in CI).
const files = process.env.MUTATION_FILES?.split(',').filter(Boolean);
// Each selection keeps its own incremental state and report; tools/mutation/run.mjs merges them.
const tag = files === undefined ? 'all' : files.join('+').replace(/[^\w+.-]/g, '_');

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  plugins: ['@stryker-mutator/vitest-runner', '@stryker-mutator/typescript-checker'],
  vitest: { configFile: 'vitest.config.ts', related: false },
  coverageAnalysis: 'perTest',
  mutate: files ?? ['src/**/*.ts', '!src/**/*.test.ts', '!src/**/*.test-d.ts', '!src/index.ts'],
  concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 1),
  timeoutMS: 10_000,
  incremental: true,
  incrementalFile: `node_modules/.cache/stryker/incremental-${tag}.json`,
  tempDirName: `node_modules/.stryker-tmp-${tag}`,
  cleanTempDir: 'always',
  reporters: ['json', 'clear-text', 'progress'],
  jsonReporter: { fileName: `node_modules/.cache/stryker/mutation-${tag}.json` },
  thresholds: { high: 90, low: 85, break: null },
};
