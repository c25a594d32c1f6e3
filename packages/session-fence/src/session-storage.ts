import type { TranscriptChangeKind } from './session-fence-error';
import type { SessionLockAcquireOptions, SessionLockHandle } from './session-lock';
import type { TranscriptEntry, TranscriptHeader, TranscriptIssue } from './transcript-types';

/**
 * What a fence remembers about a transcript, O(1) to compute and compare. For files:
 * `identity` is `dev:ino`, `size` is the byte length, `tailDigest` the SHA-256 of the last
 * `tailLength` bytes and `headDigest` the SHA-256 of the first `headLength` bytes (those not
 * already in the tail). A database-backed store can use a row id, an entry count or sequence
 * number and the hash of the last entry instead, and leave the head out.
 */
export interface TranscriptState {
  readonly exists: boolean;
  readonly identity: string;
  readonly size: number;
  readonly tailLength: number;
  readonly tailDigest: string;
  /** Bytes at the start of the file covered by `headDigest`; absent or 0 when not used. */
  readonly headLength?: number;
  readonly headDigest?: string;
}

export interface TranscriptRead {
  /** `undefined` for a missing transcript or a headerless (version 0) file. */
  header: TranscriptHeader | undefined;
  /** The format version the entries were migrated from. */
  version: number;
  entries: TranscriptEntry[];
  /** Lines that were skipped, each with its line number (full reads) and byte offset. */
  issues: TranscriptIssue[];
  exists: boolean;
}

export interface StorageCallOptions {
  signal?: AbortSignal;
}

export interface ReadTailOptions extends StorageCallOptions {
  /** Upper bound on bytes read from the end; default 1 MiB. */
  maxBytes?: number;
}

export interface AppendResult {
  /** The transcript's state right after this append, taken while the writer still held the file. */
  state: TranscriptState;
  /** What the append had to repair first: a torn last line dropped, or a complete one terminated. */
  repaired?: 'dropped-torn-line' | 'terminated-last-line';
}

/**
 * Storage behind a session: append, read the tail, lock, and the state the fence compares.
 * The file implementation is `createTranscriptStore`; a database can implement the same.
 */
export interface SessionStorage {
  /** Durably appends whole entries (creating the transcript with its header if needed). */
  append(
    sessionId: string,
    entries: readonly TranscriptEntry[],
    options?: StorageCallOptions,
  ): Promise<AppendResult>;
  read(sessionId: string, options?: StorageCallOptions): Promise<TranscriptRead>;
  readTail(sessionId: string, options?: ReadTailOptions): Promise<TranscriptRead>;
  /** Acquires the session's cross-process write lock. */
  lock(sessionId: string, options?: SessionLockAcquireOptions): Promise<SessionLockHandle>;
  state(sessionId: string, options?: StorageCallOptions): Promise<TranscriptState>;
  /** `undefined` when the transcript still matches `expected`, else what changed. */
  compare(
    sessionId: string,
    expected: TranscriptState,
    options?: StorageCallOptions,
  ): Promise<TranscriptChangeKind | undefined>;
}
