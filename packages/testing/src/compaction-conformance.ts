import { describe, expect, it } from 'vitest';
import {
  CONFORMANCE_SECTIONS,
  CONVERSATION_IDENTIFIERS,
  conformanceRequest,
  conversationEntries,
  largeEntries,
  TOOL_PAIR_IDENTIFIERS,
  toolPairEntries,
} from './compaction-conformance-fixtures';
import type {
  CompactionProviderConformanceOptions,
  ConformanceCompactionProvider,
} from './compaction-conformance-types';

const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

function isAbortRejection(error: unknown, signal: AbortSignal): boolean {
  if (error === signal.reason) return true;
  return (
    error instanceof Error && (error.name === 'AbortError' || error.name === 'APIUserAbortError')
  );
}

function missingHeadings(summary: string): string[] {
  return CONFORMANCE_SECTIONS.filter(
    (section) => !new RegExp(`^#{1,6}[ \\t]*${section}[ \\t]*:?[ \\t]*$`, 'im').test(summary),
  );
}

async function nextMacrotask(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Registers vitest tests that any `CompactionProvider` (`@keel/compaction`, `specificationVersion:
 * 'v1'`) should pass: contract shape, abort handling, non-empty output for real input, empty input,
 * tool pairs, large input within budget, no unhandled rejections. `createProvider` runs once per test.
 */
export function describeCompactionProviderConformance(
  name: string,
  createProvider: () => ConformanceCompactionProvider | Promise<ConformanceCompactionProvider>,
  options: CompactionProviderConformanceOptions = {},
): void {
  const strict = options.strict ?? true;
  const budgetTokens = options.budgetTokens ?? 2000;
  const largeInputTokens = options.largeInputTokens ?? 200_000;
  const timeout = options.timeoutMs;

  describe(`CompactionProvider conformance: ${name}`, () => {
    it('declares specificationVersion "v1", a non-empty id and summarize()', async () => {
      const provider = await createProvider();
      expect(provider.specificationVersion).toBe('v1');
      expect(typeof provider.id).toBe('string');
      expect(provider.id.length).toBeGreaterThan(0);
      expect(provider.id.startsWith('builtin:') || provider.id.startsWith('hook:')).toBe(false);
      expect(typeof provider.summarize).toBe('function');
    });

    it('returns a non-empty summary for a real conversation', { timeout }, async () => {
      const provider = await createProvider();
      const request = conformanceRequest(conversationEntries(), {
        signal: new AbortController().signal,
        budgetTokens,
        requiredIdentifiers: CONVERSATION_IDENTIFIERS,
      });
      const { summary } = await provider.summarize(request);
      expect(typeof summary).toBe('string');
      expect(summary.trim().length).toBeGreaterThan(0);
      expect(estimateTokens(summary)).toBeLessThanOrEqual(budgetTokens);
      if (strict) {
        expect(missingHeadings(summary)).toEqual([]);
        for (const id of CONVERSATION_IDENTIFIERS) expect(summary).toContain(id);
      }
    });

    it('updates a previous summary instead of dropping it', { timeout }, async () => {
      const provider = await createProvider();
      const previousSummary = CONFORMANCE_SECTIONS.map(
        (s) => `## ${s}\n- earlier: ticket OPS_4711`,
      ).join('\n');
      const request = conformanceRequest(conversationEntries(), {
        signal: new AbortController().signal,
        budgetTokens,
        previousSummary,
        requiredIdentifiers: ['OPS_4711', ...CONVERSATION_IDENTIFIERS],
      });
      const { summary } = await provider.summarize(request);
      expect(summary.trim().length).toBeGreaterThan(0);
      if (strict) expect(summary).toContain('OPS_4711');
    });

    it('handles empty input without throwing', { timeout }, async () => {
      const provider = await createProvider();
      const result = await provider.summarize(
        conformanceRequest([], { signal: new AbortController().signal, budgetTokens }),
      );
      expect(typeof result.summary).toBe('string');
      expect(estimateTokens(result.summary)).toBeLessThanOrEqual(budgetTokens);
    });

    it('handles tool_use / tool_result pairs, errors included', { timeout }, async () => {
      const provider = await createProvider();
      const { summary } = await provider.summarize(
        conformanceRequest(toolPairEntries(), {
          signal: new AbortController().signal,
          budgetTokens,
          requiredIdentifiers: TOOL_PAIR_IDENTIFIERS,
        }),
      );
      expect(summary.trim().length).toBeGreaterThan(0);
      if (strict) {
        expect(missingHeadings(summary)).toEqual([]);
        for (const id of TOOL_PAIR_IDENTIFIERS) expect(summary).toContain(id);
      }
    });

    it(`keeps a large input (~${largeInputTokens} tokens) within the budget`, {
      timeout,
    }, async () => {
      const provider = await createProvider();
      const { summary } = await provider.summarize(
        conformanceRequest(largeEntries(largeInputTokens), {
          signal: new AbortController().signal,
          budgetTokens,
        }),
      );
      expect(summary.trim().length).toBeGreaterThan(0);
      expect(estimateTokens(summary)).toBeLessThanOrEqual(budgetTokens);
    });

    it('rejects when the signal is already aborted', { timeout }, async () => {
      const provider = await createProvider();
      const controller = new AbortController();
      controller.abort();
      const error = await provider
        .summarize(
          conformanceRequest(conversationEntries(), { signal: controller.signal, budgetTokens }),
        )
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      expect(error).toBeDefined();
      expect(isAbortRejection(error, controller.signal)).toBe(true);
    });

    it('rejects when the signal aborts while it runs', { timeout }, async () => {
      const provider = await createProvider();
      const controller = new AbortController();
      let settled = false;
      const pending = provider
        .summarize(
          conformanceRequest(largeEntries(largeInputTokens), {
            signal: controller.signal,
            budgetTokens,
          }),
        )
        .then(
          (value) => ({ ok: true as const, value }),
          (error: unknown) => ({ ok: false as const, error }),
        )
        .finally(() => {
          settled = true;
        });
      await nextMacrotask();
      const finishedBeforeAbort = settled;
      controller.abort();
      const outcome = await pending;
      if (!finishedBeforeAbort) {
        expect(outcome.ok).toBe(false);
        if (!outcome.ok) expect(isAbortRejection(outcome.error, controller.signal)).toBe(true);
      }
    });

    it('leaves no unhandled rejections behind', { timeout }, async () => {
      const unhandled: unknown[] = [];
      const listener = (reason: unknown): void => {
        unhandled.push(reason);
      };
      process.on('unhandledRejection', listener);
      try {
        const provider = await createProvider();
        const aborted = new AbortController();
        aborted.abort();
        await provider
          .summarize(
            conformanceRequest(conversationEntries(), { signal: aborted.signal, budgetTokens }),
          )
          .catch(() => undefined);
        const midway = new AbortController();
        const pending = provider
          .summarize(
            conformanceRequest(largeEntries(largeInputTokens), {
              signal: midway.signal,
              budgetTokens,
            }),
          )
          .catch(() => undefined);
        await nextMacrotask();
        midway.abort();
        await pending;
        await provider
          .summarize(
            conformanceRequest(toolPairEntries(), {
              signal: new AbortController().signal,
              budgetTokens,
            }),
          )
          .catch(() => undefined);
        for (let turn = 0; turn < 5; turn += 1) await nextMacrotask();
        await new Promise((resolve) => setTimeout(resolve, 0));
      } finally {
        process.off('unhandledRejection', listener);
      }
      expect(unhandled).toEqual([]);
    });
  });
}
