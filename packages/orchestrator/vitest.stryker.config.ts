import { defineConfig } from 'vitest/config';

/**
 * The suite as Stryker runs it for every mutant: the focused tests. The fuzz properties and the
 * random-fault breaker run (tens of seconds each, random) stay in `pnpm test` and CI.
 */
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [
      'test/fuzz.test.ts',
      'test/request-ceiling-reached.test.ts',
      'test/breaker-random-faults.test.ts',
      '**/node_modules/**',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
