// Mutation testing of @keel/orchestrator (`pnpm mutation` at the root; not in CI: slow on 2 cores).
import { strykerOptions } from '../../tools/mutation/stryker-options.mjs';

export default strykerOptions({
  // Every test file imports the package through src/index, so "related" would pick all of them;
  // per-test coverage picks the tests that reach each mutant instead.
  vitestConfig: 'vitest.stryker.config.ts',
  exclude: ['src/turn-runtime.ts'],
  timeoutMS: 20_000,
  timeoutFactor: 2,
});
