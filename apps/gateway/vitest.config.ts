import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'console/**/*.test.ts'],
    // Every mock provider strict: an unpaired tool block is the provider's 400 (issue 23).
    setupFiles: ['./test/support/strict-mock-provider.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
