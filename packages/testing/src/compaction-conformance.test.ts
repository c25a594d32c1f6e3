import { describe, expect, it } from 'vitest';
import { describeCompactionProviderConformance } from './compaction-conformance';
import type { ConformanceCheckContext } from './compaction-conformance-checks';
import { compactionProviderChecks } from './compaction-conformance-checks';
import {
  CONFORMANCE_SECTIONS,
  conformanceRequest,
  largeEntries,
} from './compaction-conformance-fixtures';
import type { ConformanceCompactionProvider } from './compaction-conformance-types';

/** The smallest provider that meets the contract: headings, identifiers, abort, budget. */
function referenceProvider(): ConformanceCompactionProvider {
  return {
    specificationVersion: 'v1',
    id: 'reference',
    async summarize(request) {
      request.signal.throwIfAborted();
      await new Promise((resolve) => setImmediate(resolve));
      request.signal.throwIfAborted();
      const lines = CONFORMANCE_SECTIONS.map((section) =>
        section === 'Exact identifiers'
          ? `## ${section}\n${request.requiredIdentifiers.map((id) => `- ${id}`).join('\n')}`
          : `## ${section}\n- ${request.entries.length} messages`,
      );
      return { summary: lines.join('\n') };
    },
  };
}

describeCompactionProviderConformance('reference provider', referenceProvider);

describe('conformance fixtures', () => {
  it('builds a large input of about the requested size', () => {
    const chars = largeEntries(50_000).reduce(
      (sum, entry) =>
        sum +
        (typeof entry.content === 'string'
          ? entry.content.length
          : JSON.stringify(entry.content).length),
      0,
    );
    expect(chars / 4).toBeGreaterThanOrEqual(50_000);
    expect(chars / 4).toBeLessThan(52_000);
  });

  it('lists the identifiers in the instructions as @keel/compaction does', () => {
    const request = conformanceRequest([], {
      signal: new AbortController().signal,
      budgetTokens: 100,
      requiredIdentifiers: ['a/b.ts', 'toolu_1'],
    });
    expect(request.instructions).toContain(
      'Copy each of these identifiers verbatim into the summary: a/b.ts toolu_1',
    );
    expect(request.requiredSections).toEqual(CONFORMANCE_SECTIONS);
  });
});

/** A provider built from `summarize`, for the checks to judge. */
function providerOf(
  summarize: ConformanceCompactionProvider['summarize'],
): ConformanceCompactionProvider {
  return { specificationVersion: 'v1', id: 'under-test', summarize };
}

function runCheck(name: string, provider: ConformanceCompactionProvider): Promise<void> {
  const check = compactionProviderChecks.find((candidate) => candidate.name === name);
  if (check === undefined) throw new Error(`no check named ${name}`);
  const context: ConformanceCheckContext = {
    createProvider: () => provider,
    strict: true,
    budgetTokens: 2000,
    largeInputTokens: 20_000,
  };
  return check.run(context);
}

/** Answers well-formed summaries but never looks at its signal. */
function ignoresSignal(): ConformanceCompactionProvider {
  const good = referenceProvider();
  return providerOf(async (request) => {
    await new Promise((resolve) => setImmediate(resolve));
    return good.summarize({ ...request, signal: new AbortController().signal });
  });
}

describe('the kit fails providers that break the contract', () => {
  it('passes the reference provider on every check', async () => {
    for (const check of compactionProviderChecks) await runCheck(check.name, referenceProvider());
  });

  it.each([
    [
      'declares specificationVersion "v1", a non-empty id and summarize()',
      { ...referenceProvider(), id: 'builtin:mine' },
    ],
    [
      'returns a non-empty summary for a real conversation',
      providerOf(async () => ({ summary: '  ' })),
    ],
    [
      'returns a non-empty summary for a real conversation',
      providerOf(async () => ({ summary: '## Goal\n- only a goal' })),
    ],
    [
      'updates a previous summary instead of dropping it',
      providerOf(async (request) =>
        referenceProvider().summarize({
          ...request,
          requiredIdentifiers: request.requiredIdentifiers.slice(1),
        }),
      ),
    ],
    [
      'handles empty input without throwing',
      providerOf(async (request) => {
        if (request.entries.length === 0) throw new Error('nothing to summarize');
        return { summary: 'x' };
      }),
    ],
    [
      'handles tool_use / tool_result pairs, errors included',
      providerOf(async (request) => {
        if (
          request.entries.some(
            (entry) =>
              typeof entry.content !== 'string' &&
              entry.content.some((block) => block.type === 'tool_result'),
          )
        ) {
          throw new Error('cannot read tool results');
        }
        return referenceProvider().summarize(request);
      }),
    ],
    [
      'keeps a large input within the budget',
      providerOf(async (request) => ({ summary: 'x'.repeat(request.entries.length * 1000) })),
    ],
    ['rejects when the signal is already aborted', ignoresSignal()],
    ['rejects when the signal aborts after the call started', ignoresSignal()],
    [
      'rejects when the signal aborts after the call started',
      providerOf(async (request) => {
        await new Promise((resolve) => setImmediate(resolve));
        if (request.signal.aborted) throw new Error('some unrelated failure');
        return { summary: 'x' };
      }),
    ],
    [
      'leaves no unhandled rejections behind',
      providerOf(async (request) => {
        void Promise.reject(new Error('forgotten background work'));
        return referenceProvider().summarize(request);
      }),
    ],
  ] as const)('fails: %s', async (name, provider) => {
    await expect(runCheck(name, provider)).rejects.toThrow();
  });
});
