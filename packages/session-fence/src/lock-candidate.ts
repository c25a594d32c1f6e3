import { randomUUID } from 'node:crypto';
import { constants, unlinkSync } from 'node:fs';
import { type FileSystem, writeFully } from './file-system';
import type { LockFile } from './lock-file';
import { type LockOwner, processIdentity } from './lock-owner';

/** A would-be lock: a private file, ready to be linked; its owner record written once needed. */
export interface Candidate extends LockFile {
  owner: LockOwner;
  createdAt: number;
  /** The owner record is in the file (written before a retry, or right after the link). */
  recorded: Promise<void> | undefined;
  /** `dev` and `ino` are set. */
  identified: Promise<void> | undefined;
  /** A spare from an earlier hold: its private name may have been removed meanwhile. */
  reused: boolean;
  /** Bytes of the owner record last written (a shorter record is padded to cover it). */
  recordLength: number;
}

/** Where a lock's candidates come from, and where a released one waits for the next hold. */
export interface Candidates {
  /** The spare (its owner record renewed, which also freshens its heartbeat), else a new one. */
  take(ttlMs: number): Promise<Candidate>;
  /** A new candidate: a fresh private file. */
  create(ttlMs: number): Promise<Candidate>;
  /** The candidate's device and inode (one fstat, started once). */
  identify(candidate: Candidate): Promise<void>;
  /** Writes the owner record into the candidate, once. */
  record(candidate: Candidate): Promise<void>;
  /**
   * A candidate whose lock was just removed from the lock path: kept as the spare (its private
   * name and descriptor stay), or discarded when there is one already.
   */
  keep(candidate: Candidate): Promise<void>;
  /** Closes the candidate and removes its private name. */
  discard(candidate: { fd: number; privatePath: string }): Promise<void>;
  /** Discards the spare, and every candidate kept from now on. */
  dispose(): Promise<void>;
  /** Discards the spare once `lock`, the object these candidates serve, is garbage-collected. */
  watch(lock: object): void;
}

/** Private names of spares in this process, removed at exit (see `createCandidates`). */
const sparesAtExit = new Set<string>();
let exitHookInstalled = false;

function removeSparesAtExit(): void {
  for (const privatePath of sparesAtExit) {
    try {
      unlinkSync(privatePath);
    } catch {
      // Already gone: nothing to clean up.
    }
  }
}

/** A lock object dropped without being disposed gives its spare back. */
const droppedLocks = new FinalizationRegistry<() => void>((discardSpare) => discardSpare());

/**
 * The candidates of the lock at `path`. Creating a private file is the dearest step of taking a
 * lock (an `O_CREAT | O_EXCL` open allocates an inode and writes the directory; removing it
 * again writes the directory once more), so a released lock's file is kept, under its private
 * name and with its descriptor open, and linked again at the next hold: a hold then costs the
 * link, and a release the rename, lstat and unlink that remove the lock safely.
 *
 * The same inode under several holds: a contender that judged an earlier hold of ours stale
 * re-checks the heartbeat just before it moves the lock away (`stillStale`); in the few
 * microseconds between that check and its rename, a new hold of ours would be moved away with
 * it. The fencing token still refuses every write of that hold (the contender takes a newer
 * token), exactly as when a stale lock is taken over, and the heartbeat reports it lost.
 *
 * Spares are removed when the process exits (an `exit` listener) and when their lock object is
 * garbage-collected; one left by a process killed with SIGKILL is removed by the next store that
 * opens the sessions directory on this host (`sweepAbandonedLockFiles`).
 */
export function createCandidates(fileSystem: FileSystem, path: string): Candidates {
  const box: { spare: Candidate | undefined; disposed: boolean } = {
    spare: undefined,
    disposed: false,
  };

  function ownerRecord(token: string, ttlMs: number): LockOwner {
    const self = processIdentity();
    return {
      pid: process.pid,
      host: self.host,
      ...(self.bootId === undefined ? {} : { bootId: self.bootId }),
      ...(self.pidNamespace === undefined ? {} : { pidNamespace: self.pidNamespace }),
      token,
      acquiredAt: new Date().toISOString(),
      ttlMs,
    };
  }

  async function create(ttlMs: number): Promise<Candidate> {
    const owner = ownerRecord(randomUUID(), ttlMs);
    const privatePath = `${path}.${owner.token}.tmp`;
    // A fresh name with O_EXCL: never an existing file or symlink.
    const fd = await fileSystem.open(
      privatePath,
      constants.O_CREAT | constants.O_EXCL | constants.O_RDWR,
      0o644,
    );
    // Its identity is learned while the first link is tried (see `attempt`).
    return {
      owner,
      fd,
      privatePath,
      dev: 0n,
      ino: 0n,
      identified: undefined,
      createdAt: Date.now(),
      recorded: undefined,
      reused: false,
      recordLength: 0,
    };
  }

  /**
   * The spare, its owner record rewritten before it is linked again (it is linked nowhere now).
   * A shorter record is padded with spaces (still one JSON value) instead of truncating the file.
   */
  async function renew(spare: Candidate, ttlMs: number): Promise<Candidate> {
    const owner = ownerRecord(spare.owner.token, ttlMs);
    const json = JSON.stringify(owner);
    const padding = ' '.repeat(Math.max(0, spare.recordLength - 1 - Buffer.byteLength(json)));
    const bytes = Buffer.from(`${json}${padding}\n`);
    const recorded = writeFully(fileSystem, spare.fd, bytes, 0);
    try {
      // The write also sets the file's mtime: the heartbeat is fresh when it is linked.
      await recorded;
    } catch (error) {
      await discard(spare);
      throw error;
    }
    return {
      ...spare,
      owner,
      createdAt: Date.now(),
      recorded,
      reused: true,
      recordLength: bytes.length,
    };
  }

  async function discard(candidate: { fd: number; privatePath: string }): Promise<void> {
    sparesAtExit.delete(candidate.privatePath);
    await Promise.all([
      fileSystem.close(candidate.fd),
      fileSystem.unlink(candidate.privatePath).catch(() => {}),
    ]);
  }

  const candidates: Candidates = {
    create,
    take(ttlMs) {
      const spare = box.spare;
      if (spare === undefined) return create(ttlMs);
      box.spare = undefined;
      sparesAtExit.delete(spare.privatePath);
      return renew(spare, ttlMs);
    },
    identify(candidate) {
      candidate.identified ??= fileSystem.fstat(candidate.fd).then((stats) => {
        candidate.dev = stats.dev;
        candidate.ino = stats.ino;
      });
      return candidate.identified;
    },
    record(candidate) {
      if (candidate.recorded === undefined) {
        const bytes = Buffer.from(`${JSON.stringify(candidate.owner)}\n`);
        candidate.recordLength = bytes.length;
        candidate.recorded = writeFully(fileSystem, candidate.fd, bytes, 0);
        // Awaited later, after other requests of the same acquire: a write that fails at once
        // (a full disk) must not count as an unhandled rejection meanwhile (it crashed the process).
        candidate.recorded.catch(() => undefined);
      }
      return candidate.recorded;
    },
    async keep(candidate) {
      if (box.disposed || box.spare !== undefined || candidate.identified === undefined) {
        await discard(candidate);
        return;
      }
      box.spare = candidate;
      sparesAtExit.add(candidate.privatePath);
      if (!exitHookInstalled) {
        exitHookInstalled = true;
        process.once('exit', removeSparesAtExit);
      }
    },
    discard,
    async dispose() {
      box.disposed = true;
      const spare = box.spare;
      box.spare = undefined;
      if (spare !== undefined) await discard(spare);
    },
    watch(lock) {
      droppedLocks.register(lock, () => {
        const spare = box.spare;
        box.spare = undefined;
        if (spare !== undefined) void discard(spare).catch(() => {});
      });
    },
  };
  return candidates;
}
