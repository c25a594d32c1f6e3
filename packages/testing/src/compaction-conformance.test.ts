import { describe, expect, it } from 'vitest';
import { describeCompactionProviderConformance } from './compaction-conformance';
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
