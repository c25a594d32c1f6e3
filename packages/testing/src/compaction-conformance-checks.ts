import type { CompactionProvider } from '@keel/spec';
import { expect } from 'vitest';
import {
  CONFORMANCE_SECTIONS,
  CONVERSATION_IDENTIFIERS,
  conformanceRequest,
  conversationEntries,
  largeEntries,
  TOOL_PAIR_IDENTIFIERS,
  toolPairEntries,
} from './compaction-conformance-fixtures';

/** What every check is given: the provider under test and the kit's resolved options. */
export interface ConformanceCheckContext {
  createProvider: () => CompactionProvider | Promise<CompactionProvider>;
  strict: boolean;
  budgetTokens: number;
  largeInputTokens: number;
  /** How a summary's tokens are counted against `budgetTokens`. */
  estimateTokens(text: string): number;
}

/** One conformance check: a test name and what it asserts (it throws when the provider fails). */
export interface ConformanceCheck {
  name: string;
  run(context: ConformanceCheckContext): Promise<void>;
}

/** Four characters per token: the kit's default measure of a summary against its budget. */
export const charactersOverFour = (text: string): number => Math.ceil(text.length / 4);

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

/** How a call ended, without throwing. */
async function settle<T>(
  promise: Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

function expectAbortRejection(
  outcome: { ok: true } | { ok: false; error: unknown },
  signal: AbortSignal,
  when: string,
): void {
  expect(outcome.ok, `summarize() resolved although its signal was aborted ${when}`).toBe(false);
  if (!outcome.ok) {
    expect(
      isAbortRejection(outcome.error, signal),
      `summarize() rejected with something other than the signal's reason or an AbortError: ${String(outcome.error)}`,
    ).toBe(true);
  }
}

/**
 * Collects the process's unhandled rejections while `body` runs. Other listeners (the test
 * runner's) are set aside meanwhile, so that a leak fails this check with a clear message
 * instead of failing the whole run.
 */
async function collectUnhandledRejections(body: () => Promise<void>): Promise<unknown[]> {
  const unhandled: unknown[] = [];
  const others = process.listeners('unhandledRejection');
  const listener = (reason: unknown): void => {
    unhandled.push(reason);
  };
  process.removeAllListeners('unhandledRejection');
  process.on('unhandledRejection', listener);
  try {
    await body();
    for (let turn = 0; turn < 5; turn += 1) await nextMacrotask();
    await new Promise((resolve) => setTimeout(resolve, 0));
  } finally {
    process.off('unhandledRejection', listener);
    for (const other of others) process.on('unhandledRejection', other);
  }
  return unhandled;
}

/** The checks, in the order the kit registers them. */
export const compactionProviderChecks: readonly ConformanceCheck[] = [
  {
    name: 'declares specificationVersion "v1", a non-empty id and summarize()',
    async run({ createProvider }) {
      const provider = await createProvider();
      expect(provider.specificationVersion).toBe('v1');
      expect(typeof provider.id).toBe('string');
      expect(provider.id.length).toBeGreaterThan(0);
      expect(provider.id.startsWith('builtin:') || provider.id.startsWith('hook:')).toBe(false);
      expect(typeof provider.summarize).toBe('function');
    },
  },
  {
    name: 'returns a non-empty summary for a real conversation',
    async run({ createProvider, strict, budgetTokens, estimateTokens }) {
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
    },
  },
  {
    name: 'updates a previous summary instead of dropping it',
    async run({ createProvider, strict, budgetTokens }) {
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
    },
  },
  {
    name: 'handles empty input without throwing',
    async run({ createProvider, budgetTokens, estimateTokens }) {
      const provider = await createProvider();
      const result = await provider.summarize(
        conformanceRequest([], { signal: new AbortController().signal, budgetTokens }),
      );
      expect(typeof result.summary).toBe('string');
      expect(estimateTokens(result.summary)).toBeLessThanOrEqual(budgetTokens);
    },
  },
  {
    name: 'handles tool_use / tool_result pairs, errors included',
    async run({ createProvider, strict, budgetTokens }) {
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
    },
  },
  {
    name: 'keeps a large input within the budget',
    async run({ createProvider, budgetTokens, largeInputTokens, estimateTokens }) {
      const provider = await createProvider();
      const { summary } = await provider.summarize(
        conformanceRequest(largeEntries(largeInputTokens), {
          signal: new AbortController().signal,
          budgetTokens,
        }),
      );
      expect(summary.trim().length).toBeGreaterThan(0);
      expect(estimateTokens(summary)).toBeLessThanOrEqual(budgetTokens);
    },
  },
  {
    name: 'rejects when the signal is already aborted',
    async run({ createProvider, budgetTokens }) {
      const provider = await createProvider();
      const controller = new AbortController();
      controller.abort();
      const outcome = await settle(
        provider.summarize(
          conformanceRequest(conversationEntries(), { signal: controller.signal, budgetTokens }),
        ),
      );
      expectAbortRejection(outcome, controller.signal, 'before the call');
    },
  },
  {
    name: 'rejects when the signal aborts after the call started',
    async run({ createProvider, budgetTokens, largeInputTokens }) {
      const provider = await createProvider();
      const controller = new AbortController();
      // summarize() has run up to its first await; a provider that honours its signal sees the
      // abort at its next check and rejects instead of resolving
      const pending = settle(
        provider.summarize(
          conformanceRequest(largeEntries(largeInputTokens), {
            signal: controller.signal,
            budgetTokens,
          }),
        ),
      );
      controller.abort();
      expectAbortRejection(await pending, controller.signal, 'during the call');
    },
  },
  {
    name: 'leaves no unhandled rejections behind',
    async run({ createProvider, budgetTokens, largeInputTokens }) {
      const unhandled = await collectUnhandledRejections(async () => {
        const provider = await createProvider();
        const aborted = new AbortController();
        aborted.abort();
        await settle(
          provider.summarize(
            conformanceRequest(conversationEntries(), { signal: aborted.signal, budgetTokens }),
          ),
        );
        const midway = new AbortController();
        const pending = settle(
          provider.summarize(
            conformanceRequest(largeEntries(largeInputTokens), {
              signal: midway.signal,
              budgetTokens,
            }),
          ),
        );
        await nextMacrotask();
        midway.abort();
        await pending;
        await settle(
          provider.summarize(
            conformanceRequest(toolPairEntries(), {
              signal: new AbortController().signal,
              budgetTokens,
            }),
          ),
        );
      });
      expect(unhandled).toEqual([]);
    },
  },
];
