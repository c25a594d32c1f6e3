import { constants } from 'node:fs';
import { dirname } from 'node:path';
import type { TranscriptState } from '@keel/spec';
import { createFenceCounters, type FenceCounters } from './fence-counters';
import type { FileSystem } from './file-system';
import { createKeptLeases, type KeptLeases } from './kept-leases';
import { errorCode } from './safe-file';
import {
  createSessionLockWith,
  type InternalSessionLock,
  type SessionLockOptions,
} from './session-lock';
import { createSessionPath } from './session-path';
import { sweepAbandonedLockFiles } from './sweep-abandoned-lock-files';
import { createTranscriptFiles, type TranscriptFiles } from './transcript-files';
import type { DigestWindow } from './transcript-snapshot';

/** What every operation of one file store shares. */
export interface StoreContext {
  fileSystem: FileSystem;
  sessionsDir: string;
  durable: boolean;
  window: DigestWindow;
  lock: Omit<SessionLockOptions, 'path'>;
  /** `<sessionsDir>/<sessionId><extension>`, the id validated (`session-path.ts`). */
  sessionPath(sessionId: string, extension: string): string;
  transcriptPath(sessionId: string): string;
  lockPath(sessionId: string): string;
  fencePath(sessionId: string): string;
  /**
   * Creates `sessionsDir` once (and makes its new entries durable); again after it vanished. The
   * first time, it also starts removing, in the background, the spare lock files a killed process
   * of this host left there (`sweepAbandonedLockFiles`).
   */
  ensureDirectory(): Promise<void>;
  /** Forgets that the directory exists (an operation found it gone). */
  directoryGone(): void;
  /** fsyncs `sessionsDir`, so a file just created in it survives a crash. */
  syncDirectory(): Promise<void>;
  /** Transcripts kept open between operations. */
  files: TranscriptFiles;
  /** Fencing-token counters kept open across leases. */
  counters: FenceCounters;
  /** Leases kept between holds while nobody asks for them. */
  kept: KeptLeases;
  /**
   * The lock of a session, one object per session for the most recently used ones, so a released
   * lock's file is reused by the next hold (see `createCandidates`).
   */
  sessionLock(sessionId: string): InternalSessionLock;
  /**
   * The state each session's transcript had after the last operation here: its size is a guess
   * of where to read (always checked), its digests spare hashing bytes seen before.
   */
  knownStates: Map<string, TranscriptState>;
  rememberState(sessionId: string, state: TranscriptState): void;
}

const MAX_KNOWN_STATES = 1024;
/** Session locks (each with at most one spare file and descriptor) kept per store. */
const MAX_SESSION_LOCKS = 1024;

export function createStoreContext(options: {
  fileSystem: FileSystem;
  sessionsDir: string;
  durable: boolean;
  window: DigestWindow;
  lock: Omit<SessionLockOptions, 'path'>;
  /** How long a lease is kept unused between holds (0: never kept). */
  keptLeaseIdleMs?: number;
}): StoreContext {
  const { fileSystem, sessionsDir, durable } = options;
  let ready: Promise<void> | undefined;
  let swept = false;
  const knownStates = new Map<string, TranscriptState>();
  const locks = new Map<string, InternalSessionLock>();
  const counters = createFenceCounters(fileSystem);
  const sessionPath = createSessionPath(sessionsDir);
  const pathOf = (extension: string) => (sessionId: string) => sessionPath(sessionId, extension);

  const lockPath = pathOf('.lock');

  async function syncDirectoryAt(directory: string): Promise<void> {
    let fd: number | undefined;
    try {
      // O_NONBLOCK: the open is synchronous (see `nodeFileSystem`), and must never wait on a FIFO.
      fd = await fileSystem.open(directory, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
      await fileSystem.fsync(fd);
    } catch (error) {
      // Some platforms and file systems refuse fsync on a directory; the file itself is synced.
      const code = errorCode(error);
      if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM') throw error;
    } finally {
      if (fd !== undefined) await fileSystem.close(fd);
    }
  }

  async function createDirectory(): Promise<void> {
    const first = await fileSystem.mkdir(sessionsDir);
    if (first === undefined || !durable) return;
    // `mkdir -p` made `first` and everything below it down to `sessionsDir`: each new entry
    // lives in its parent, which is synced so the directories survive a crash with the files.
    const created: string[] = [];
    for (let directory = sessionsDir; ; directory = dirname(directory)) {
      created.push(directory);
      if (directory === first || dirname(directory) === directory) break;
    }
    await Promise.all(created.map((directory) => syncDirectoryAt(dirname(directory))));
  }

  return {
    fileSystem,
    sessionsDir,
    durable,
    window: options.window,
    lock: options.lock,
    sessionPath,
    transcriptPath: pathOf('.jsonl'),
    lockPath,
    fencePath: pathOf('.fence'),
    ensureDirectory() {
      if (ready === undefined) {
        ready = createDirectory().catch((error: unknown) => {
          ready = undefined;
          throw error;
        });
        if (!swept) {
          swept = true;
          void ready.then(() => sweepAbandonedLockFiles(fileSystem, sessionsDir)).catch(() => {});
        }
      }
      return ready;
    },
    directoryGone() {
      ready = undefined;
      // A counter created in the directory made again is another file than the one kept open.
      counters.forgetAll();
    },
    syncDirectory: () => syncDirectoryAt(sessionsDir),
    files: createTranscriptFiles(fileSystem),
    counters,
    kept: createKeptLeases(
      options.keptLeaseIdleMs === undefined ? {} : { idleMs: options.keptLeaseIdleMs },
    ),
    sessionLock(sessionId) {
      const path = lockPath(sessionId);
      let lock = locks.get(path);
      if (lock === undefined) {
        lock = createSessionLockWith(fileSystem, { ...options.lock, path });
      } else {
        locks.delete(path);
      }
      locks.set(path, lock);
      if (locks.size > MAX_SESSION_LOCKS) {
        const [oldest, evicted] = locks.entries().next().value as [string, InternalSessionLock];
        locks.delete(oldest);
        void evicted.dispose().catch(() => {});
      }
      return lock;
    },
    knownStates,
    rememberState(sessionId, state) {
      knownStates.delete(sessionId);
      knownStates.set(sessionId, state);
      if (knownStates.size > MAX_KNOWN_STATES) {
        const oldest = knownStates.keys().next().value;
        if (oldest !== undefined) knownStates.delete(oldest);
      }
    },
  };
}

const queues = new Map<string, Promise<void>>();

/**
 * Runs `task` after every earlier task of the same `key` in this process has settled: a check
 * and the write it guards never interleave with another append to the same transcript. With
 * `holdUntil`, the next task also waits for what it returns (a deferred flush still running).
 */
export function serialized<T>(
  key: string,
  task: () => Promise<T>,
  holdUntil?: (value: T) => Promise<unknown> | undefined,
): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  const result = previous.then(task);
  const settled = result.then(
    (value) =>
      holdUntil?.(value)?.then(
        () => {},
        () => {},
      ),
    () => {},
  );
  queues.set(key, settled);
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key);
  });
  return result;
}
