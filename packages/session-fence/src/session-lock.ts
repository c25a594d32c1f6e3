// Longer than our ~400 lines on purpose: `createSessionLockWith` is one closure over a lock's state
// (its handle, candidates, heartbeat, the kept lease and the asks for it) shared by acquire, release
// and the heartbeat; its helpers live beside it (lock-wanted.ts, lock-file.ts, lock-heartbeat.ts).
import { type FileSystem, nodeFileSystem } from './file-system';
import { type Candidate, createCandidates } from './lock-candidate';
import { type LockFile, type ObservedLock, observeLock, removeLockFile } from './lock-file';
import { HANDLE_READS, type HandleReads, handleProperties } from './lock-handle-properties';
import { startHeartbeat } from './lock-heartbeat';
import type { LockOwner } from './lock-owner';
import { LockProof } from './lock-proof';
import { type AskedHold, clearWanted, shouldAsk, signalWanted, watchLinks } from './lock-wanted';
import { errorCode } from './safe-file';
import { SessionLockTimeoutError } from './session-fence-error';
import { waitForRelease } from './wait-for-release';

export interface SessionLockOptions {
  /** The lock file, e.g. `<sessionsDir>/<sessionId>.lock`. */
  path: string;
  /** A lock whose heartbeat is older than this is stale (unless its holder set its own ttl); default 10 000. */
  staleMs?: number;
  /** How often the holder refreshes its heartbeat; default a quarter of the holder's ttl. */
  heartbeatMs?: number;
  /** Default acquire timeout; default 30 000. */
  timeoutMs?: number;
  /** Base delay between acquire attempts (plus up to 100 % jitter); default 25. */
  pollMs?: number;
}

export interface LockCallOptions {
  signal?: AbortSignal;
}

/** What happened to a held lock between calls, reported instead of swallowed. */
export type SessionLockEvent =
  /** Refreshing the heartbeat failed once; the lock may still be held. */
  | { type: 'heartbeat-failed'; path: string; error: unknown }
  /** The lock file is no longer this holder's (it was taken over as stale, or removed). */
  | { type: 'lock-lost'; path: string };

export interface SessionLockAcquireOptions {
  signal?: AbortSignal;
  /** Overrides the lock's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** How long this holder's heartbeat may pause before contenders may take over; default `staleMs`. */
  ttlMs?: number;
  /** Observes the held lock (heartbeat failures, loss); must not throw. */
  onEvent?: (event: SessionLockEvent) => void;
}

export interface SessionLockHandle {
  readonly owner: LockOwner;
  readonly released: boolean;
  /** True while the lock file on disk is still this handle's own file (one `lstat`). */
  isHeld(options?: LockCallOptions): Promise<boolean>;
  /** Refreshes the heartbeat now. `false` (and nothing refreshed) when the lock is no longer held. */
  renew(options?: LockCallOptions): Promise<boolean>;
  /**
   * Stops the heartbeat and removes the lock file if it is still this handle's. Idempotent. Takes
   * no signal on purpose: cleanup must run to the end.
   */
  release(): Promise<void>;
}

export interface SessionLock {
  readonly path: string;
  /** Waits until the lock is free or stale, up to the timeout (`SessionLockTimeoutError`). */
  acquire(options?: SessionLockAcquireOptions): Promise<SessionLockHandle>;
  /** One attempt: a handle, or `undefined` if someone else holds a live lock. */
  tryAcquire(
    options?: Omit<SessionLockAcquireOptions, 'timeoutMs'>,
  ): Promise<SessionLockHandle | undefined>;
  /** The current owner, or `undefined` when the lock is free or unreadable. */
  readOwner(options?: LockCallOptions): Promise<LockOwner | undefined>;
}

/**
 * A held lock as the store sees it: it also learns whether someone is waiting for it (see
 * `lock-wanted.ts`), so a holder that could let go early knows when to.
 */
export interface InternalLockHandle extends SessionLockHandle {
  /** The holder's own file (its identity and private name). */
  readonly file: LockFile;
  /** A waiter asked for the lock since it was taken (as far as this holder has seen). */
  readonly wanted: boolean;
  /**
   * `isHeld`, without the look while the last look at the lock file (`isHeld`, a heartbeat) still
   * proves it this holder's: see `LockProof`. The store's own checks use it; `isHeld` always looks.
   */
  isHeldOrProven(): Promise<boolean>;
  /**
   * Calls `listener` once, as soon as a waiter's ask is seen: at once for a waiter of this lock
   * object, at the next look at the lock file (a heartbeat, `isHeld`, `renew`) for another.
   * Returns the unsubscribe function.
   */
  onWanted(listener: () => void): () => void;
}

/** A lock just taken: its owner record may still be on its way into the file. */
export interface TakenLock {
  handle: InternalLockHandle;
  /** Resolves once the owner record is written (readers meanwhile see a fresh, ownerless lock). */
  recorded: Promise<void>;
}

/**
 * A cross-process lock built on one file, `path`.
 *
 * - Taking it: the owner record (pid, host, boot id, pid namespace, token, ttl) is written to a
 *   private file `<path>.<token>.tmp`, which is then hard-linked to `path`; `link` fails with
 *   EEXIST while the lock exists, so readers never see a half-written lock. An EEXIST whose lock
 *   turns out to be our own file (a retransmitted `link` on NFS whose first reply was lost)
 *   counts as success. The private name is kept while the lock is held, and after its release
 *   with the descriptor open, for the next hold of this lock object (see `createCandidates`).
 * - Holding it: a heartbeat refreshes the file's mtime through the holder's descriptor, and
 *   checks that `path` still names the holder's file; a failure of either is reported
 *   (`heartbeat-failed`, `lock-lost`), never swallowed.
 * - Stale: when its heartbeat is older than the holder's ttl, or when its owner's pid is dead
 *   and the pid can be looked up here (same host, boot and pid namespace; see
 *   `sharesProcessTable`).
 * - Removing it, by its holder or by a contender taking over a stale lock, never unlinks by path:
 *   see `removeLockFile`.
 */
export function createSessionLock(options: SessionLockOptions): SessionLock {
  return createSessionLockWith(nodeFileSystem, options);
}

/** The lock as the store uses it: it can also hand out a lock before its owner record is in. */
export interface InternalSessionLock extends SessionLock {
  /** `acquire`, returning as soon as the lock is linked (see `TakenLock`). */
  take(options?: SessionLockAcquireOptions): Promise<TakenLock>;
  /** Removes the private file kept for the next hold (see `createCandidates`). */
  dispose(): Promise<void>;
}

/** `createSessionLock` over a given file system (the store passes its own). */
export function createSessionLockWith(
  fileSystem: FileSystem,
  options: SessionLockOptions,
): InternalSessionLock {
  const path = options.path;
  const staleMs = options.staleMs ?? 10_000;
  const defaultTimeoutMs = options.timeoutMs ?? 30_000;
  const pollMs = options.pollMs ?? 25;
  const lockFile = { fileSystem, path, staleMs };
  const candidates = createCandidates(fileSystem, path);
  const { identify, record } = candidates;
  /** Handles of this lock object not released yet (a waiter here asks them in memory). */
  const held = new Set<{ candidate: Candidate; markWanted(): void }>();

  /**
   * A waiter asks the live holder it saw to let go when it can: in memory when this lock object
   * is the holder, else by `signalWanted` (a link to the holder's file).
   */
  async function askHolder(seen: ObservedLock): Promise<void> {
    for (const holder of held) {
      if (holder.candidate.dev === seen.dev && holder.candidate.ino === seen.ino) {
        holder.markWanted();
        return;
      }
    }
    await signalWanted(fileSystem, path);
  }

  /** One try to link the candidate at `path`; the last lock seen when someone else holds it. */
  async function attempt(
    candidate: Candidate,
  ): Promise<{ acquired: true } | { acquired: false; seen: ObservedLock | undefined }> {
    let seen: ObservedLock | undefined;
    for (let round = 0; round < 3; round += 1) {
      const [linked, identified] = await Promise.allSettled([
        fileSystem.link(candidate.privatePath, path),
        identify(candidate),
      ]);
      // fstat of an open descriptor failing (EIO) leaves a lock whose identity is unknown: it
      // is never removed by path; without a heartbeat it goes stale after its ttl.
      if (identified.status === 'rejected') throw identified.reason;
      if (linked.status === 'fulfilled') return { acquired: true };
      if (errorCode(linked.reason) !== 'EEXIST') throw linked.reason;
      const [observed] = await Promise.all([observeLock(lockFile), record(candidate)]);
      seen = observed;
      if (seen === undefined) continue;
      // Our own file: the link happened although it reported EEXIST.
      if (seen.dev === candidate.dev && seen.ino === candidate.ino) return { acquired: true };
      if (!seen.stale) return { acquired: false, seen };
      await removeLockFile(lockFile, seen, `${path}.${candidate.owner.token}.tomb`);
    }
    return { acquired: false, seen };
  }

  async function tryWith(
    candidate: Candidate,
    acquireOptions: SessionLockAcquireOptions,
  ): Promise<InternalLockHandle | ObservedLock | undefined> {
    const result = await attempt(candidate);
    if (!result.acquired) return result.seen;
    return createHandle(candidate, acquireOptions);
  }

  function createHandle(
    candidate: Candidate,
    acquireOptions: SessionLockAcquireOptions,
  ): InternalLockHandle {
    const ttlMs = candidate.owner.ttlMs ?? staleMs;
    const heartbeatMs = Math.max(1, options.heartbeatMs ?? Math.floor(ttlMs / 4));
    let released = false;
    let wanted = false;
    const wantedListeners = new Set<() => void>();
    // The watch of our file, from the first `onWanted` until the release (see there).
    let stopWatching: (() => void) | undefined;
    const markWanted = (): void => {
      if (wanted || released) return;
      wanted = true;
      for (const listener of [...wantedListeners]) {
        try {
          listener();
        } catch {
          // A throwing listener must not break the waiter or the heartbeat.
        }
      }
      wantedListeners.clear();
    };
    const self = { candidate, markWanted };
    held.add(self);
    const emit = (event: SessionLockEvent): void => {
      try {
        acquireOptions.onEvent?.(event);
      } catch {
        // A throwing listener must not break the heartbeat.
      }
    };
    const proof = new LockProof(ttlMs);
    const isHeld = async (): Promise<boolean> => {
      if (released) return false;
      try {
        const stats = await fileSystem.lstat(path);
        const own = stats.dev === candidate.dev && stats.ino === candidate.ino;
        // Held, our file has two names (the lock path and our private one): a third is a
        // waiter's ask (`signalWanted`), seen here for free.
        if (own && stats.nlink > 2n) markWanted();
        if (own) proof.seenOwn(Number(stats.mtimeMs));
        else proof.lost();
        return own;
      } catch (error) {
        proof.lost();
        if (errorCode(error) === 'ENOENT') return false;
        throw error;
      }
    };
    // Declared here, not inside `onWanted`: a closure made there would share that call's scope and
    // keep its `listener` (a turn's fence, through the lease it parked) for as long as the watch
    // runs, long after the listener stopped listening (the lock kept across turns).
    const onLinkChange = (): void => {
      if (!released && !wanted) void isHeld().catch(() => false);
    };
    const heartbeat = startHeartbeat({
      fileSystem,
      fd: candidate.fd,
      intervalMs: heartbeatMs,
      isHeld,
      report: (report) =>
        emit(
          report.type === 'lost'
            ? { type: 'lock-lost', path }
            : { type: 'heartbeat-failed', path, error: report.error },
        ),
    });
    const handle: Omit<InternalLockHandle, keyof HandleReads> & { [HANDLE_READS]: HandleReads } = {
      [HANDLE_READS]: { released: () => released, wanted: () => wanted },
      owner: candidate.owner,
      file: candidate,
      isHeldOrProven() {
        return !released && proof.holds() ? Promise.resolve(true) : isHeld();
      },
      onWanted(listener) {
        if (wanted) {
          listener();
          return () => {};
        }
        wantedListeners.add(listener);
        // Once someone listened, an ask from another process is seen at once: its link changes
        // our file's link count, which a watch of our private name reports (then one lstat
        // looks); without a watch, at the next heartbeat. The watch stays until the release, so
        // a lease kept again and again (across model calls, between turns) adds it once.
        stopWatching ??= watchLinks(candidate.privatePath, onLinkChange);
        return () => {
          wantedListeners.delete(listener);
        };
      },
      async isHeld(callOptions: LockCallOptions = {}) {
        callOptions.signal?.throwIfAborted();
        return isHeld();
      },
      async renew(callOptions: LockCallOptions = {}) {
        callOptions.signal?.throwIfAborted();
        if (!(await isHeld())) return false;
        const now = new Date();
        await fileSystem.futimes(candidate.fd, now, now);
        return true;
      },
      async release() {
        if (released) return;
        released = true;
        held.delete(self);
        wantedListeners.clear();
        stopWatching?.();
        heartbeat.stop();
        // Never close the descriptor under the owner record's write.
        await candidate.recorded?.catch(() => {});
        // The descriptor stays open until the removal has compared inodes: while it is open, no
        // other file can be given this inode number.
        let removed = false;
        try {
          const moved = await removeLockFile(
            lockFile,
            candidate,
            `${path}.${candidate.owner.token}.tomb`,
          );
          // A waiter's ask still names our file (the tomb, our private name and the ask): it is
          // answered now, and must not make our next hold of this file look wanted.
          if (wanted || (moved?.nlink ?? 0n) > 2n) await clearWanted(fileSystem, path, candidate);
          removed = true;
        } finally {
          // Kept for the next hold only once it is known not to be at the lock path.
          await (removed ? candidates.keep(candidate) : candidates.discard(candidate));
        }
      },
    };
    // `released` and `wanted` come from the prototype (see `handleProperties`).
    return Object.setPrototypeOf(handle, handleProperties) as InternalLockHandle;
  }

  /** Waits for the lock (or tries once), up to the timeout. */
  async function take(
    acquireOptions: SessionLockAcquireOptions,
    once: boolean,
  ): Promise<TakenLock | undefined> {
    const { signal } = acquireOptions;
    signal?.throwIfAborted();
    const timeoutMs = acquireOptions.timeoutMs ?? defaultTimeoutMs;
    const ttlMs = acquireOptions.ttlMs ?? staleMs;
    const deadline = Date.now() + timeoutMs;
    let candidate = await candidates.take(ttlMs);
    // The hold this call asked to let go last, and when.
    let asked: AskedHold | undefined;
    // Discarded and not yet replaced: a failure then has nothing left to discard (closing its
    // descriptor again could close another file that reused the number meanwhile).
    let discarded = false;
    let result: TakenLock | undefined;
    try {
      for (;;) {
        signal?.throwIfAborted();
        let attempted: InternalLockHandle | ObservedLock | undefined;
        try {
          attempted = await tryWith(candidate, acquireOptions);
        } catch (error) {
          // A spare whose private name is gone (removed with a lock of ours taken over as stale).
          if (!candidate.reused || errorCode(error) !== 'ENOENT') throw error;
          discarded = true;
          await candidates.discard(candidate);
          candidate = await candidates.create(ttlMs);
          discarded = false;
          continue;
        }
        if (isHandle(attempted)) {
          result = { handle: attempted, recorded: record(candidate) };
          break;
        }
        if (once) break;
        if (attempted !== undefined && shouldAsk(attempted, asked)) {
          asked = { dev: attempted.dev, ino: attempted.ino, at: Date.now() };
          await askHolder(attempted);
        }
        const remaining = deadline - Date.now();
        if (remaining <= 0) {
          const owner = attempted?.owner
            ? { pid: attempted.owner.pid, host: attempted.owner.host }
            : undefined;
          throw new SessionLockTimeoutError({ lockPath: path, timeoutMs, owner });
        }
        await waitForRelease(path, Math.min(remaining, pollMs + Math.random() * pollMs), signal);
        // A waiting candidate's mtime must be fresh when it is linked: it is the heartbeat.
        if (Date.now() - candidate.createdAt > ttlMs / 4) {
          const now = new Date();
          await fileSystem.futimes(candidate.fd, now, now);
          candidate.createdAt = now.getTime();
        }
      }
    } catch (error) {
      if (!discarded) await candidates.discard(candidate);
      throw error;
    }
    if (result === undefined) {
      await candidates.keep(candidate);
      return undefined;
    }
    if (signal?.aborted) {
      await settleTaken(result);
      signal.throwIfAborted();
    }
    return result;
  }

  /** Releases a lock taken but not handed out, once its record is settled. */
  async function settleTaken(lock: TakenLock): Promise<void> {
    await lock.recorded.catch(() => {});
    await lock.handle.release();
  }

  /** Owner records of handles this lock handed out that are still being written. */
  const pending = new Set<Promise<void>>();

  /**
   * The handle at once: its owner record goes in meanwhile (a reader in that instant sees a
   * fresh lock without an owner, which counts as held). A failed write is reported as a
   * `heartbeat-failed` event: the lock is held, only its record is missing.
   */
  function handOut(
    lock: TakenLock | undefined,
    acquireOptions: SessionLockAcquireOptions,
  ): SessionLockHandle | undefined {
    if (lock === undefined) return undefined;
    const recorded = lock.recorded.catch((error: unknown) => {
      try {
        acquireOptions.onEvent?.({ type: 'heartbeat-failed', path, error });
      } catch {
        // A throwing listener is ignored.
      }
    });
    pending.add(recorded);
    void recorded.then(() => pending.delete(recorded));
    return lock.handle;
  }

  const lock: InternalSessionLock = {
    path,
    take: async (acquireOptions = {}) => {
      const lock = await take(acquireOptions, false);
      if (lock === undefined) throw new Error('unreachable: a waiting acquire returned nothing');
      return lock;
    },
    tryAcquire: async (acquireOptions = {}) =>
      handOut(await take(acquireOptions, true), acquireOptions),
    async readOwner(callOptions: LockCallOptions = {}) {
      callOptions.signal?.throwIfAborted();
      await Promise.all(pending);
      return (await observeLock(lockFile))?.owner;
    },
    async acquire(acquireOptions = {}) {
      const handle = handOut(await take(acquireOptions, false), acquireOptions);
      if (handle === undefined) throw new Error('unreachable: a waiting acquire returned nothing');
      return handle;
    },
    dispose: () => candidates.dispose(),
  };
  candidates.watch(lock);
  return lock;
}

function isHandle(value: unknown): value is InternalLockHandle {
  return typeof value === 'object' && value !== null && 'release' in value;
}
