import type { CompactionEntry, TranscriptEntry } from './types';

/**
 * Where a session's transcript lives, as compaction needs it. The caller holds the session's
 * write lock for the duration of `compact()`; compaction reads once and appends at most once.
 */
export interface CompactionStore {
  /** Every entry of the session's transcript, oldest first (header lines excluded). */
  readEntries(options: { signal: AbortSignal }): Promise<readonly TranscriptEntry[]>;
  /** Append one entry as one whole line, atomically: either all of it lands or none of it. */
  append(entry: CompactionEntry, options: { signal: AbortSignal }): Promise<void>;
}
