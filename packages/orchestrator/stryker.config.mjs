// Mutation testing of @keel/orchestrator (`pnpm mutation` at the root; not in CI: slow on 2 cores).
// MUTATION_FILES (comma-separated globs) narrows what is mutated, e.g. the decision core only.
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
  // Every test file imports the package through src/index, so "related" would pick all of them;
  // per-test coverage picks the tests that reach each mutant instead.
  vitest: { configFile: 'vitest.stryker.config.ts', related: false },
  coverageAnalysis: 'perTest',
  mutate: files ?? [
    'src/**/*.ts',
    '!src/**/*.test.ts',
    '!src/**/*.test-d.ts',
    '!src/index.ts',
    '!src/turn-runtime.ts',
  ],
  concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 1),
  timeoutMS: 20_000,
  timeoutFactor: 2,
  incremental: true,
  incrementalFile: `node_modules/.cache/stryker/incremental-${tag}.json`,
  tempDirName: `node_modules/.stryker-tmp-${tag}`,
  cleanTempDir: 'always',
  reporters: ['json', 'clear-text', 'progress'],
  jsonReporter: { fileName: `node_modules/.cache/stryker/mutation-${tag}.json` },
  thresholds: { high: 90, low: 85, break: null },
};
