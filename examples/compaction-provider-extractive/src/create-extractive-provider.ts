import type { CompactionProvider } from '@keel/compaction';
import { estimateTextTokens } from '@keel/compaction';
import { createSectionExtractor } from './extract-sections';
import { renderSummary } from './render-summary';

export interface ExtractiveProviderOptions {
  /** Registry id; default `extractive`. */
  id?: string;
  /** Messages processed between two yields to the event loop (and abort checks); default 200. */
  batchSize?: number;
  /** Most bullets per section; default 12. */
  maxBullets?: number;
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A deterministic, LLM-free `CompactionProvider`: it extracts the goal, constraints, decisions,
 * progress, open items and exact identifiers from the messages by rules, merges them into the
 * previous summary and fits the result into the budget. Same input, same summary.
 */
export function createExtractiveProvider(
  options: ExtractiveProviderOptions = {},
): CompactionProvider {
  const batchSize = Math.max(1, options.batchSize ?? 200);
  return {
    specificationVersion: 'v1',
    id: options.id ?? 'extractive',
    async summarize(request) {
      request.signal.throwIfAborted();
      const extractor = createSectionExtractor();
      for (let start = 0; start < request.entries.length; start += batchSize) {
        for (const message of request.entries.slice(start, start + batchSize))
          extractor.addMessage(message);
        await yieldToEventLoop();
        request.signal.throwIfAborted();
      }
      const summary = renderSummary(extractor.result(), {
        previousSummary: request.previousSummary,
        requiredIdentifiers: request.requiredIdentifiers,
        budgetTokens: request.budgetTokens,
        ...(options.maxBullets === undefined ? {} : { maxBullets: options.maxBullets }),
      });
      // fail rather than hand back a summary cut to fit: the compactor then tries the next producer
      if (estimateTextTokens(summary) > request.budgetTokens) {
        throw new Error('the required identifiers alone do not fit the summary budget');
      }
      return { summary };
    },
  };
}
