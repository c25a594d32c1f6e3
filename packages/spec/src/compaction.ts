import type { ErrorKind } from './error-kind';
import type { StorageCallOptions } from './storage';
import type { CompactionEntry, MessageEntry, TranscriptEntry } from './transcript';

/** What a compaction provider is asked to do: summarize `entries` on top of `previousSummary`. */
export interface CompactionProviderRequest {
  /** The messages being compacted, oldest first. May be empty. */
  entries: readonly MessageEntry[];
  /** The summary of the previous compaction, to be updated rather than discarded. */
  previousSummary: string | undefined;
  /** What the summary must contain, in prose (sections, identifiers, any correction). */
  instructions: string;
  /** Aborted when the caller gives up or the provider timeout passes; stop and reject then. */
  signal: AbortSignal;
  /** Largest acceptable summary, in estimated tokens. */
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
 * A third-party summary producer, version 1. Its output passes the same validation as the
 * built-in summarizer's; on failure, timeout, abort or empty output the next producer (in the
 * end the built-in LLM summarizer) is tried. A summary is never a placeholder.
 */
export interface CompactionProvider {
  readonly specificationVersion: 'v1';
  /** Unique within a registry; must not start with `builtin:` or `hook:`. */
  readonly id: string;
  /** Resolve with the summary, or reject. Must reject promptly once `request.signal` aborts. */
  summarize(request: CompactionProviderRequest): Promise<CompactionProviderResult>;
}

/** Why a compaction runs: over the threshold, after a `context_overflow` error, or asked for. */
export type CompactionTrigger = 'threshold' | 'overflow' | 'manual';

/** Why a compaction did nothing. */
export type CompactionSkipReason = 'not-needed' | 'nothing-to-compact' | 'paused' | 'cancelled';

/** One failed try of one producer. */
export interface CompactionAttempt {
  /** `builtin:llm`, a provider id, or `hook:beforeCompact`. */
  producerId: string;
  /** 1-based call number within that producer. */
  attempt: number;
  /** Log-safe reason: a validation problem, a provider failure, an error kind's message. */
  reason: string;
  /** The error's kind when the try failed with an error. */
  kind?: ErrorKind;
}

/** What a compactor reports, as a union on `type`. */
export type CompactionEvent =
  /** A compaction began: the plan is made and producers are about to run. */
  | {
      type: 'compaction-start';
      sessionId: string;
      trigger: CompactionTrigger;
      tokensBefore: number;
      compactedMessages: number;
      keptMessages: number;
    }
  /** A model call of the built-in summarizer failed transiently and will be retried. */
  | {
      type: 'compaction-retry';
      sessionId: string;
      producerId: string;
      /** 0-based chunk index; -1 for the corrective call. */
      chunk: number;
      attempt: number;
      kind: ErrorKind;
      delayMs: number;
    }
  /** A producer failed or its output was rejected; the next one (if any) runs. */
  | {
      type: 'compaction-fallback';
      sessionId: string;
      producerId: string;
      nextProducerId: string | null;
      reason: string;
    }
  /** Nothing was done, and why (`detail` says more, e.g. everything is within `keepRecentTokens`). */
  | {
      type: 'compaction-skipped';
      sessionId: string;
      trigger: CompactionTrigger;
      reason: CompactionSkipReason;
      detail?: string;
    }
  /** A compaction that started is over: compacted, failed (nothing written) or aborted. */
  | {
      type: 'compaction-end';
      sessionId: string;
      trigger: CompactionTrigger;
      outcome: 'compacted' | 'failed' | 'aborted' | 'cancelled';
      entry?: CompactionEntry;
      attempts: readonly CompactionAttempt[];
    }
  /** Automatic compaction is paused for the session after consecutive failures. */
  | { type: 'compaction-paused'; sessionId: string; consecutiveFailures: number }
  /** Automatic compaction runs again for the session. */
  | { type: 'compaction-resumed'; sessionId: string };

/**
 * Where a compaction reads the transcript and writes its entry. `SessionStorage` fits; the
 * orchestrator passes one whose `append` goes through the turn's fence.
 */
export interface CompactionStore {
  /** Every entry of the session's transcript, oldest first (header excluded). */
  read(
    sessionId: string,
    options?: StorageCallOptions,
  ): Promise<{ entries: readonly TranscriptEntry[] }>;
  /** Appends the entries in one atomic write; compaction passes exactly one. */
  append(
    sessionId: string,
    entries: readonly CompactionEntry[],
    options?: StorageCallOptions,
  ): Promise<unknown>;
}

export interface CompactRequest {
  sessionId: string;
  store: CompactionStore;
  /** Default `threshold`: compacts only when needed. `overflow` and `manual` always try. */
  trigger?: CompactionTrigger;
  /** Extra instructions for the summary (e.g. from a `/compact <focus>` command). */
  focus?: string;
  signal: AbortSignal;
}

export type CompactResult =
  | { status: 'compacted'; entry: CompactionEntry }
  | { status: 'skipped'; reason: CompactionSkipReason; detail?: string };

/**
 * The compactor port the orchestrator calls (`@keel/compaction`'s `createCompactor` satisfies
 * it). `compact` rejects with an error when every producer failed (nothing written) and with the
 * signal's reason on a caller abort (nothing written).
 */
export interface CompactorPort {
  compact(request: CompactRequest): Promise<CompactResult>;
  /**
   * Whether a transcript is over the compaction threshold, cheaply and without I/O. Without it the
   * caller asks `compact({ trigger: 'threshold' })`, which decides for itself. `entries` may be the
   * transcript's live part only: from its latest compaction and the entries that compaction kept
   * on (what a model is shown), what was compacted before left out. `compact` reads the whole.
   */
  shouldCompact?(entries: readonly TranscriptEntry[]): boolean;
  /** Adds a listener for compaction events; returns the function that removes it. */
  subscribe?(listener: (event: CompactionEvent) => void): () => void;
}
