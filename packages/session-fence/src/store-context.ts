import { constants } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FileSystem } from './file-system';
import { errorCode } from './safe-file';
import { assertValidSessionId } from './session-id';
import type { SessionLockOptions } from './session-lock';
import { createTranscriptFiles, type TranscriptFiles } from './transcript-files';
import type { DigestWindow } from './transcript-snapshot';

/** What every operation of one file store shares. */
export interface StoreContext {
  fileSystem: FileSystem;
  sessionsDir: string;
  durable: boolean;
  window: DigestWindow;
  lock: Omit<SessionLockOptions, 'path'>;
  transcriptPath(sessionId: string): string;
  lockPath(sessionId: string): string;
  fencePath(sessionId: string): string;
  /** Creates `sessionsDir` once (and makes its new entries durable); again after it vanished. */
  ensureDirectory(): Promise<void>;
  /** Forgets that the directory exists (an operation found it gone). */
  directoryGone(): void;
  /** fsyncs `sessionsDir`, so a file just created in it survives a crash. */
  syncDirectory(): Promise<void>;
  /** Transcripts kept open between operations. */
  files: TranscriptFiles;
  /** The size each session's transcript had after the last operation here: a guess, always checked. */
  knownSizes: Map<string, number>;
  rememberSize(sessionId: string, size: number): void;
}

const MAX_KNOWN_SIZES = 1024;

export function createStoreContext(options: {
  fileSystem: FileSystem;
  sessionsDir: string;
  durable: boolean;
  window: DigestWindow;
  lock: Omit<SessionLockOptions, 'path'>;
}): StoreContext {
  const { fileSystem, sessionsDir, durable } = options;
  let ready: Promise<void> | undefined;
  const knownSizes = new Map<string, number>();
  const pathOf = (extension: string) => (sessionId: string) => {
    assertValidSessionId(sessionId);
    return join(sessionsDir, `${sessionId}${extension}`);
  };

  async function syncDirectoryAt(directory: string): Promise<void> {
    let fd: number | undefined;
    try {
      fd = await fileSystem.open(directory, constants.O_RDONLY);
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
    transcriptPath: pathOf('.jsonl'),
    lockPath: pathOf('.lock'),
    fencePath: pathOf('.fence'),
    ensureDirectory() {
      ready ??= createDirectory().catch((error: unknown) => {
        ready = undefined;
        throw error;
      });
      return ready;
    },
    directoryGone() {
      ready = undefined;
    },
    syncDirectory: () => syncDirectoryAt(sessionsDir),
    files: createTranscriptFiles(fileSystem),
    knownSizes,
    rememberSize(sessionId, size) {
      knownSizes.delete(sessionId);
      knownSizes.set(sessionId, size);
      if (knownSizes.size > MAX_KNOWN_SIZES) {
        const oldest = knownSizes.keys().next().value;
        if (oldest !== undefined) knownSizes.delete(oldest);
      }
    },
  };
}

const queues = new Map<string, Promise<void>>();

/**
 * Runs `task` after every earlier task of the same `key` in this process has settled: a check
 * and the write it guards never interleave with another append to the same transcript.
 */
export function serialized<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  const result = previous.then(task);
  const settled = result.then(
    () => {},
    () => {},
  );
  queues.set(key, settled);
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key);
  });
  return result;
}
