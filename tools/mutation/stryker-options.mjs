// The Stryker options every package's stryker.config.mjs shares (`pnpm mutation` at the root; not
// in CI: slow on 2 cores). MUTATION_FILES (comma-separated globs) narrows what is mutated; each
// selection keeps its own incremental state and report, which tools/mutation/run.mjs merges.
import { createHash } from 'node:crypto';

const files = process.env.MUTATION_FILES?.split(',').filter(Boolean);
// A selection's tag names its report and temp folder: its files, shortened with a hash when long
// (a file name has at most 255 bytes), or MUTATION_TAG.
const joined = files === undefined ? 'all' : files.join('+').replace(/[^\w+.-]/g, '_');
const tag =
  process.env.MUTATION_TAG ??
  (joined.length <= 80
    ? joined
    : `${joined.slice(0, 60)}-${createHash('sha256').update(joined).digest('hex').slice(0, 12)}`);

/**
 * @param {{ vitestConfig?: string, exclude?: string[], timeoutMS?: number, timeoutFactor?: number }} [own]
 * @returns {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export function strykerOptions(own = {}) {
  return {
    testRunner: 'vitest',
    checkers: ['typescript'],
    tsconfigFile: 'tsconfig.json',
    typescriptChecker: { prioritizePerformanceOverAccuracy: true },
    plugins: ['@stryker-mutator/vitest-runner', '@stryker-mutator/typescript-checker'],
    vitest: { configFile: own.vitestConfig ?? 'vitest.config.ts', related: false },
    coverageAnalysis: 'perTest',
    mutate: files ?? [
      'src/**/*.ts',
      '!src/**/*.test.ts',
      '!src/**/*.test-d.ts',
      '!src/index.ts',
      ...(own.exclude ?? []).map((glob) => `!${glob}`),
    ],
    concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 1),
    timeoutMS: own.timeoutMS ?? 10_000,
    ...(own.timeoutFactor === undefined ? {} : { timeoutFactor: own.timeoutFactor }),
    incremental: true,
    incrementalFile: `node_modules/.cache/stryker/incremental-${tag}.json`,
    tempDirName: `node_modules/.stryker-tmp-${tag}`,
    cleanTempDir: 'always',
    reporters: ['json', 'clear-text', 'progress'],
    jsonReporter: { fileName: `node_modules/.cache/stryker/mutation-${tag}.json` },
    thresholds: { high: 90, low: 85, break: null },
  };
}
