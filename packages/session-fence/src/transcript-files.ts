import type { BigIntStats } from 'node:fs';
import { constants } from 'node:fs';
import type { FileSystem } from './file-system';
import { errorCode, unsafePathError } from './safe-file';
import { UnsafeTranscriptPathError } from './session-fence-error';

const { O_NOFOLLOW = 0, O_NONBLOCK = 0 } = constants;
/** One descriptor per transcript serves reads (at explicit positions) and appends. */
const openFlags = constants.O_RDWR | constants.O_APPEND | O_NOFOLLOW | O_NONBLOCK;
/**
 * Descriptors kept open while no operation uses them, most recently used last. As many as the
 * fencing-token counters keep (`MAX_IDLE_COUNTERS`): a gateway serving more active sessions than
 * this reopens each transcript at every turn (an open, an fstat and a close more per turn).
 */
export const MAX_IDLE_TRANSCRIPTS = 64;

/** A transcript's open descriptor, lent to one operation. */
export interface TranscriptFile {
  fd: number;
  /** False for a transcript this process may only read (opened read-only, never kept). */
  writable: boolean;
  /**
   * The descriptor's fstat, taken together with an lstat of the path when the descriptor was
   * already open: the path must still name this very file, else the operation starts over.
   */
  stats: Promise<BigIntStats>;
  /** Gives the descriptor back (kept open for the next operation, up to a few per store). */
  done(): void;
  /**
   * Keeps the descriptor open (never closed as idle or stale) until `until` settles, after `done`
   * too: a deferred fsync still running on it.
   */
  keepUntil(until: Promise<unknown>): void;
}

interface Cached {
  fd: number;
  /** The descriptor's file, once its first fstat has answered. */
  identity: { dev: bigint; ino: bigint } | undefined;
  users: number;
  writable: boolean;
  /** No longer the path's kept descriptor: closed once its last user is done. */
  forgotten: boolean;
}

/** Thrown inside an operation when the path no longer names the kept descriptor's file. */
class MovedError extends Error {}

/**
 * Keeps a transcript open between operations, so that each one costs an lstat of the path
 * instead of an open, an fstat and a close. The lstat proves the path still names the kept file
 * (a transcript replaced by rename or removed is reopened, never written through a stale
 * descriptor), and being that file's, it is also the descriptor's fstat.
 */
export interface TranscriptFiles {
  /**
   * Runs `task` with the transcript at `path` open (read and append), or with `undefined` when
   * it does not exist. A task that found the kept descriptor stale is run again on a fresh one.
   */
  use<T>(path: string, task: (file: TranscriptFile | undefined) => Promise<T>): Promise<T>;
  /** Adopts a descriptor the caller just opened for `path` (a transcript it created). */
  adopt(path: string, fd: number): TranscriptFile;
  /** Closes every kept descriptor nobody uses (the store itself is gone). */
  closeIdle(): void;
}

export function createTranscriptFiles(fileSystem: FileSystem): TranscriptFiles {
  const open = new Map<string, Cached>();

  function lend(cached: Cached, stats: Promise<BigIntStats>): TranscriptFile {
    cached.users += 1;
    let returned = false;
    const giveBack = () => {
      cached.users -= 1;
      if (cached.forgotten && cached.users === 0) closeQuietly(cached.fd);
      else trim();
    };
    return {
      fd: cached.fd,
      writable: cached.writable,
      stats,
      done() {
        if (returned) return;
        returned = true;
        giveBack();
      },
      keepUntil(until) {
        cached.users += 1;
        void until.then(giveBack, giveBack);
      },
    };
  }

  function forget(path: string, cached: Cached): void {
    if (cached.forgotten) return;
    cached.forgotten = true;
    if (open.get(path) === cached) open.delete(path);
    if (cached.users === 0) closeQuietly(cached.fd);
  }

  function trim(): void {
    let idle = 0;
    for (const cached of open.values()) if (cached.users === 0) idle += 1;
    for (const [path, cached] of open) {
      if (idle <= MAX_IDLE_TRANSCRIPTS) break;
      if (cached.users > 0) continue;
      forget(path, cached);
      idle -= 1;
    }
  }

  function closeQuietly(fd: number): void {
    // Closing a descriptor nobody uses any more; a failure has no one to report to.
    fileSystem.close(fd).catch(() => {});
  }

  async function openFresh(path: string): Promise<Cached | undefined> {
    let fd: number;
    let writable = true;
    try {
      fd = await fileSystem.open(path, openFlags);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      if (code !== 'EACCES' && code !== 'EROFS' && code !== 'EPERM') {
        throw unsafePathError(error, path) ?? error;
      }
      // A transcript this process may read but not write: readable, never kept.
      fd = await fileSystem.open(path, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      writable = false;
    }
    return { fd, identity: undefined, users: 0, writable, forgotten: false };
  }

  async function regularStats(path: string, cached: Cached): Promise<BigIntStats> {
    const stats = await fileSystem.fstat(cached.fd);
    if (!stats.isFile()) throw new UnsafeTranscriptPathError({ path, reason: 'not-regular' });
    cached.identity = { dev: stats.dev, ino: stats.ino };
    return stats;
  }

  /**
   * The kept descriptor's stats, once the path is shown to still name its file: one lstat of the
   * path, which is the descriptor's own fstat when it names the same device and inode.
   */
  async function verifiedStats(path: string, cached: Cached): Promise<BigIntStats> {
    // The descriptor's identity is known after its first use: then the lstat alone.
    const identity = cached.identity ?? (await fileSystem.fstat(cached.fd));
    let named: BigIntStats | undefined;
    try {
      named = await fileSystem.lstat(path);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'ENOTDIR') throw error;
    }
    if (named === undefined || named.dev !== identity.dev || named.ino !== identity.ino) {
      throw new MovedError();
    }
    return named;
  }

  return {
    async use(path, task) {
      const kept = open.get(path);
      if (kept !== undefined) {
        // Move it to the end: most recently used.
        open.delete(path);
        open.set(path, kept);
        const stats = verifiedStats(path, kept);
        // Handled by the task; this only keeps a task that never looked from leaving it unhandled.
        stats.catch(() => {});
        const file = lend(kept, stats);
        try {
          return await task(file);
        } catch (error) {
          if (!(error instanceof MovedError)) throw error;
          file.done();
          forget(path, kept);
        } finally {
          file.done();
        }
      }
      const fresh = await openFresh(path);
      if (fresh === undefined) return task(undefined);
      const stats = regularStats(path, fresh);
      // A non-regular file is never kept.
      stats.catch(() => {});
      const current = open.get(path);
      if (current !== undefined) forget(path, current);
      if (fresh.writable) open.set(path, fresh);
      else fresh.forgotten = true;
      const file = lend(fresh, stats);
      try {
        return await task(file);
      } catch (error) {
        if (
          await stats.then(
            () => false,
            () => true,
          )
        )
          forget(path, fresh);
        throw error;
      } finally {
        file.done();
      }
    },

    closeIdle() {
      for (const [path, cached] of open) if (cached.users === 0) forget(path, cached);
    },

    adopt(path, fd) {
      const current = open.get(path);
      if (current !== undefined) forget(path, current);
      const cached: Cached = {
        fd,
        identity: undefined,
        users: 0,
        writable: true,
        forgotten: false,
      };
      open.set(path, cached);
      const stats = regularStats(path, cached);
      stats.catch(() => {});
      return lend(cached, stats);
    },
  };
}
