import type { CompactionEntry, TranscriptEntry } from './types';

/**
 * Where session transcripts live, as compaction needs them: a structural subset of
 * `@keel/session-fence`'s `SessionStorage`, so its `createTranscriptStore()` fits as it is.
 * The caller holds the session's write lock for the duration of `compact()`; compaction reads
 * once and appends at most once.
 */
export interface CompactionStore {
  /** Every entry of the session's transcript, oldest first (header excluded). */
  read(
    sessionId: string,
    options?: { signal?: AbortSignal },
  ): Promise<{ entries: readonly TranscriptEntry[] }>;
  /** Appends the entries as whole lines in one atomic write; compaction passes exactly one. */
  append(
    sessionId: string,
    entries: readonly CompactionEntry[],
    options?: { signal?: AbortSignal },
  ): Promise<unknown>;
}
