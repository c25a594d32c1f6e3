import { resolve } from 'node:path';
import type {
  InspectOptions,
  LeaseOptions,
  SessionLease,
  SessionStorage,
  StorageCallOptions,
} from '@keel/spec';
import { appendEntries } from './append-entries';
import { acquireLease } from './file-lease';
import { type FileSystem, nodeFileSystem, readableFile } from './file-system';
import { DEFAULT_INSPECT_TAIL_BYTES, inspectTrailingToolUsesIn } from './find-orphaned-tool-uses';
import {
  compareTranscript,
  readTranscript,
  readTranscriptSince,
  transcriptState,
} from './read-transcript';
import { errorCode } from './safe-file';
import { isValidSessionId } from './session-id';
import type { SessionLockOptions } from './session-lock';
import { asStorageCall, storageFailure } from './storage-failure';
import { createStoreContext } from './store-context';
import { DEFAULT_HEAD_DIGEST_BYTES, DEFAULT_TAIL_DIGEST_BYTES } from './transcript-snapshot';
import { createFileTurnClaims } from './turn-claim';

export interface TranscriptStoreOptions {
  /** Directory holding `<sessionId>.jsonl`, `.lock` and `.fence`; created on first use. */
  sessionsDir: string;
  /** `fsync` the file after every append (and the directory after creating a file); default true. */
  fsync?: boolean;
  /**
   * Lock settings shared by every session of this store. `staleMs` is the default lease ttl,
   * `timeoutMs` the default lease (and temporary lock) timeout.
   */
  lock?: Omit<SessionLockOptions, 'path'>;
  /** Bytes at the end of the file covered by the fence digest; default 4096. */
  tailDigestBytes?: number;
  /** Bytes at the start of the file (outside the tail) covered by the fence digest; default 4096. */
  headDigestBytes?: number;
  /**
   * How long a released lease is kept for the session's next lease while nobody asks for its
   * lock, in ms; default 5 000; 0 lets every lease go at its release (see "The lease kept while
   * nobody asks").
   */
  keptLeaseIdleMs?: number;
}

/** The file-backed `SessionStorage`, plus the paths it uses. */
export interface TranscriptStore extends SessionStorage {
  readonly sessionsDir: string;
  /** Always given here: the bytes after the state's size, once its ranges still match. */
  readSince: NonNullable<SessionStorage['readSince']>;
  /** `<sessionsDir>/<sessionId>.jsonl`, after validating the id (never escapes `sessionsDir`). */
  transcriptPath(sessionId: string): string;
  /** `<sessionsDir>/<sessionId>.lock`: the session's lock file while a lease holds it. */
  lockPath(sessionId: string): string;
  /** `<sessionsDir>/<sessionId>.fence`: the session's fencing-token counter. */
  fencePath(sessionId: string): string;
  /**
   * Lets go of the leases this store keeps between holds (see "The lease kept while nobody
   * asks"), and keeps none from now on. The store still works. Idempotent.
   */
  close(): Promise<void>;
}

const DEFAULT_TAIL_READ_BYTES = 1024 * 1024;

/** A store dropped without being kept closes the transcripts and counters it kept open. */
const openFiles = new FinalizationRegistry<{ closeIdle(): void }>((files) => files.closeIdle());

/** Creates the file-backed transcript store: one append-only JSONL file per session. */
export function createTranscriptStore(options: TranscriptStoreOptions): TranscriptStore {
  return createTranscriptStoreWith(nodeFileSystem, options);
}

/** `createTranscriptStore` over a given file system (tests count or fail its requests). */
export function createTranscriptStoreWith(
  fileSystem: FileSystem,
  options: TranscriptStoreOptions,
): TranscriptStore {
  const context = createStoreContext({
    fileSystem,
    sessionsDir: resolve(options.sessionsDir),
    durable: options.fsync ?? true,
    window: {
      tailBytes: options.tailDigestBytes ?? DEFAULT_TAIL_DIGEST_BYTES,
      headBytes: options.headDigestBytes ?? DEFAULT_HEAD_DIGEST_BYTES,
    },
    lock: options.lock ?? {},
    ...(options.keptLeaseIdleMs === undefined ? {} : { keptLeaseIdleMs: options.keptLeaseIdleMs }),
  });

  const store: TranscriptStore = {
    sessionsDir: context.sessionsDir,
    transcriptPath: context.transcriptPath,
    lockPath: context.lockPath,
    fencePath: context.fencePath,
    close: () => context.kept.close(),

    // Every operation's file-system failures (a full disk, a read-only directory) reach the
    // caller as `StorageError`s (kind `storage`), never as raw system errors.
    append: (sessionId, entries, appendOptions) =>
      asStorageCall('append', sessionId, async () => {
        const result = await appendEntries(context, sessionId, entries, appendOptions);
        if (result.durable === undefined) return result;
        // A failed deferred flush reaches the caller as the `StorageError` a failed append is.
        const durable = result.durable.catch((error: unknown) => {
          throw storageFailure(error, 'append', sessionId);
        });
        durable.catch(() => {});
        return { ...result, durable };
      }),

    read: (sessionId, callOptions = {}) =>
      asStorageCall('read', sessionId, () =>
        readTranscript(context, sessionId, undefined, callOptions.signal),
      ),

    readTail: (sessionId, callOptions = {}) =>
      asStorageCall('read', sessionId, () =>
        readTranscript(
          context,
          sessionId,
          callOptions.maxBytes ?? DEFAULT_TAIL_READ_BYTES,
          callOptions.signal,
        ),
      ),

    readSince: (sessionId, since, callOptions = {}) =>
      asStorageCall('read', sessionId, () =>
        readTranscriptSince(context, sessionId, since, callOptions.signal),
      ),

    state: (sessionId, callOptions = {}) =>
      asStorageCall('state', sessionId, () =>
        transcriptState(context, sessionId, callOptions.signal),
      ),

    compare: (sessionId, expected, callOptions = {}) =>
      asStorageCall('compare', sessionId, () =>
        compareTranscript(context, sessionId, expected, callOptions.signal),
      ),

    lease: (sessionId, leaseOptions = {}) =>
      asStorageCall('lease', sessionId, () => lease(sessionId, leaseOptions)),

    inspectTrailingToolUses: (sessionId, inspectOptions = {}) =>
      asStorageCall('read', sessionId, () => inspectTrailingToolUses(sessionId, inspectOptions)),

    list: (callOptions = {}) => asStorageCall('list', undefined, () => list(callOptions)),

    // One running turn per session across processes: `<id>.turn.lock` held for the whole turn.
    turnClaims: createFileTurnClaims(context, () => store),
  };

  async function lease(sessionId: string, leaseOptions: LeaseOptions): Promise<SessionLease> {
    const paths = {
      fileSystem,
      sessionId,
      lockPath: context.lockPath(sessionId),
      fencePath: context.fencePath(sessionId),
      lock: context.sessionLock(sessionId),
      counters: context.counters,
      kept: context.kept,
    };
    leaseOptions.signal?.throwIfAborted();
    await context.ensureDirectory();
    try {
      return await acquireLease(paths, leaseOptions);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
      // The directory was removed since this store created it.
      context.directoryGone();
      await context.ensureDirectory();
      return acquireLease(paths, leaseOptions);
    }
  }

  async function inspectTrailingToolUses(sessionId: string, inspectOptions: InspectOptions) {
    inspectOptions.signal?.throwIfAborted();
    return context.files.use(context.transcriptPath(sessionId), async (file) => {
      if (file === undefined) return { orphans: [], complete: true };
      const size = Number((await file.stats).size);
      return inspectTrailingToolUsesIn(readableFile(fileSystem, file.fd), size, {
        format: 'keel',
        tailBytes: inspectOptions.maxBytes ?? DEFAULT_INSPECT_TAIL_BYTES,
        ...(inspectOptions.signal === undefined ? {} : { signal: inspectOptions.signal }),
      });
    });
  }

  async function list(callOptions: StorageCallOptions): Promise<string[]> {
    callOptions.signal?.throwIfAborted();
    let names: string[];
    try {
      names = await fileSystem.readdir(context.sessionsDir);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return [];
      throw error;
    }
    callOptions.signal?.throwIfAborted();
    return names
      .filter((name) => name.endsWith('.jsonl'))
      .map((name) => name.slice(0, -'.jsonl'.length))
      .filter(isValidSessionId);
  }

  openFiles.register(store, context.files);
  openFiles.register(store, { closeIdle: () => context.counters.forgetAll() });
  return store;
}
