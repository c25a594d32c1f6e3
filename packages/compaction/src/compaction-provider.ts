import type { MessageEntry } from './types';

/** What a provider is asked to do: summarize `entries` on top of `previousSummary`. */
export interface CompactionProviderRequest {
  /** The messages being compacted, oldest first. May be empty. */
  entries: readonly MessageEntry[];
  /** The summary of the previous compaction, to be updated rather than discarded. */
  previousSummary: string | undefined;
  /** What the summary must contain, in prose (sections, identifiers, any correction). */
  instructions: string;
  /** Aborted when the caller gives up or the provider timeout passes; stop and reject then. */
  signal: AbortSignal;
  /** Largest acceptable summary, in estimated tokens (characters / 4). */
  budgetTokens: number;
  /** Markdown headings the summary must contain (`## Goal`, …). */
  requiredSections: readonly string[];
  /** Strings from the compacted range that must appear verbatim (paths, ids, URLs). */
  requiredIdentifiers: readonly string[];
}

export interface CompactionProviderResult {
  summary: string;
}

/**
 * A third-party summary producer. Its output passes the same validation as the built-in
 * summarizer's; on failure, timeout, disconnect or empty output the next producer is tried.
 */
export interface CompactionProvider {
  readonly specificationVersion: 'v1';
  /** Unique within a registry; must not start with `builtin:` or `hook:`. */
  readonly id: string;
  /** Resolve with the summary, or reject. Must reject promptly once `request.signal` aborts. */
  summarize(request: CompactionProviderRequest): Promise<CompactionProviderResult>;
}
