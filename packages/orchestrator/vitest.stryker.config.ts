import { defineConfig } from 'vitest/config';

/**
 * The suite as Stryker runs it for every mutant: the focused tests. The fuzz properties and the
 * random-fault breaker run (tens of seconds each, random) stay in `pnpm test` and CI, and so does
 * the transcript cache's heap measurement (src/transcript-heap.test.ts): with transcript-cache.ts
 * instrumented by Stryker its Japanese-text case measured 2.49 (bound 1.5) in the initial run, which
 * stopped the whole run; it measures V8's heap, not the code's decisions.
 */
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [
      'test/fuzz.test.ts',
      'test/request-ceiling-reached.test.ts',
      'test/breaker-random-faults.test.ts',
      'src/transcript-heap.test.ts',
      '**/node_modules/**',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
