import type { CompactionProvider } from '@keel/spec';
import { describe, it } from 'vitest';
import { charactersOverFour, compactionProviderChecks } from './compaction-conformance-checks';
import type { CompactionProviderConformanceOptions } from './compaction-conformance-types';

/**
 * Registers vitest tests that any `CompactionProvider` (`@keel/compaction`, `specificationVersion:
 * 'v1'`) should pass: contract shape, abort handling, non-empty output for real input, empty input,
 * tool pairs, large input within budget, no unhandled rejections. `createProvider` runs once per test.
 */
export function describeCompactionProviderConformance(
  name: string,
  createProvider: () => CompactionProvider | Promise<CompactionProvider>,
  options: CompactionProviderConformanceOptions = {},
): void {
  const context = {
    createProvider,
    strict: options.strict ?? true,
    budgetTokens: options.budgetTokens ?? 2000,
    largeInputTokens: options.largeInputTokens ?? 200_000,
    estimateTokens: options.estimateTokens ?? charactersOverFour,
  };
  describe(`CompactionProvider conformance: ${name}`, () => {
    for (const check of compactionProviderChecks) {
      it(check.name, { timeout: options.timeoutMs }, () => check.run(context));
    }
  });
}
