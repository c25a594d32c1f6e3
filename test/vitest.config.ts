import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    globalSetup: ['./vitest.global-setup.ts'],
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
  },
});
