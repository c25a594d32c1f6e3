import { constants } from 'node:fs';
import type {
  LeaseEvent,
  LeaseOptions,
  SessionLease,
  StorageCallOptions,
  TranscriptChangeKind,
} from '@keel/spec';
import { readFenceCounter, writeFenceCounter } from './fence-counter';
import type { BorrowedCounter, FenceCounters } from './fence-counters';
import type { FileSystem } from './file-system';
import { type KeptLease, type KeptLeases, type LeaseEvents, letGoKept } from './kept-leases';
import { RELEASED_READ, releasedProperty } from './released-property';
import { openRegularFileIfExists } from './safe-file';
import { SessionFenceError, SessionTakeoverError } from './session-fence-error';
import type { InternalLockHandle, InternalSessionLock, SessionLockEvent } from './session-lock';

/** Where one session's lease lives. */
export interface LeasePaths {
  fileSystem: FileSystem;
  sessionId: string;
  lockPath: string;
  fencePath: string;
  /** The session's lock (the store keeps one per session, with its spare file). */
  lock: InternalSessionLock;
  /** The store's counter descriptors, kept open across leases. */
  counters: FenceCounters;
  /** The leases the store keeps between holds (see `kept-leases.ts`). */
  kept: KeptLeases;
}

interface LeaseState {
  paths: LeasePaths;
  lock: InternalLockHandle;
  counter: BorrowedCounter;
  token: bigint;
  ttlMs: number | undefined;
  events: LeaseEvents;
  /** Released, the store may keep its lock for the next lease (`releaseNow` says no). */
  keep: boolean;
}

const leaseStates = new WeakMap<SessionLease, LeaseState>();
/** The live lease of each lock path in this process, for appends that name only `expected`. */
const liveLeases = new Map<string, SessionLease>();

/**
 * Takes the session's lock, then, under it, increments the fencing-token counter: the new value
 * is this lease's token. The counter's descriptor is borrowed from the store while the lock is
 * being taken (opened only when the store keeps none), and kept while the lease lives, so
 * naming a lost lease's change later is one read.
 */
export async function acquireLease(
  paths: LeasePaths,
  options: LeaseOptions = {},
): Promise<SessionLease> {
  const { fileSystem, sessionId } = paths;
  options.signal?.throwIfAborted();
  const kept = paths.kept.take(paths.lockPath);
  if (kept !== undefined) {
    const reused = await reuseKept(paths, kept, options);
    if (reused !== undefined) return reused;
  }
  const events: LeaseEvents = { sessionId, token: '', onEvent: options.onEvent };
  const lockAcquire = paths.lock.take({
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
    onEvent: (event) => report(events, event),
  });
  const [locked, counter] = await Promise.allSettled([
    lockAcquire,
    paths.counters.borrow(paths.fencePath),
  ]);
  if (locked.status === 'rejected' || counter.status === 'rejected') {
    await Promise.all([
      locked.status === 'fulfilled'
        ? locked.value.recorded.catch(() => {}).then(() => locked.value.handle.release())
        : undefined,
      counter.status === 'fulfilled' ? counter.value.giveBack() : undefined,
    ]);
    throw locked.status === 'rejected' ? locked.reason : (counter as PromiseRejectedResult).reason;
  }
  const lock = locked.value.handle;
  const borrowed = counter.value;
  let next: bigint;
  try {
    // The lock's owner record goes in while the counter is read (one round trip for both).
    const [current] = await Promise.all([
      readFenceCounter(fileSystem, borrowed.fd, paths.fencePath),
      locked.value.recorded,
    ]);
    next = current + 1n;
    await writeFenceCounter(fileSystem, borrowed.fd, next);
  } catch (error) {
    await locked.value.recorded.catch(() => {});
    await Promise.all([lock.release(), borrowed.giveBack()]);
    throw error;
  }
  events.token = next.toString();
  return issueLease({ paths, lock, counter: borrowed, token: next, ttlMs: options.ttlMs, events });
}

/** A lease event of the lock, to the lease that holds it now (none while it is kept). */
function report(events: LeaseEvents, event: SessionLockEvent): void {
  const { sessionId, token } = events;
  const leaseEvent: LeaseEvent =
    event.type === 'lock-lost'
      ? { type: 'lease-lost', sessionId, token }
      : { type: 'lease-renew-failed', sessionId, token, error: event.error };
  try {
    events.onEvent?.(leaseEvent);
  } catch {
    // A throwing listener is ignored (LeaseOptions.onEvent).
  }
}

/**
 * The next lease from the lease the store kept: while its lock is still its own file (one
 * `lstat`, or none while its last look proves it: `LockProof`) and nobody asked for it, the
 * lock was held the whole time, so nobody else moved the counter: the new token is the kept one
 * plus one, written without a read. Otherwise (lost, asked for, another ttl) the kept lease is let
 * go and `undefined` returned: a lease is taken as usual.
 */
async function reuseKept(
  paths: LeasePaths,
  kept: KeptLease,
  options: LeaseOptions,
): Promise<SessionLease | undefined> {
  const { handle } = kept;
  const usable =
    kept.ttlMs === options.ttlMs &&
    !handle.wanted &&
    (await handle.isHeldOrProven().catch(() => false)) &&
    !handle.wanted;
  if (!usable) {
    await letGoKept(kept);
    return undefined;
  }
  const next = kept.token + 1n;
  try {
    await writeFenceCounter(paths.fileSystem, kept.counter.fd, next);
  } catch (error) {
    await letGoKept(kept);
    throw error;
  }
  const events = kept.events;
  events.token = next.toString();
  events.onEvent = options.onEvent;
  return issueLease({
    paths,
    lock: handle,
    counter: kept.counter,
    token: next,
    ttlMs: options.ttlMs,
    events,
  });
}

/** Releases `lease` and lets its lock go now (the store keeps nothing for the next lease). */
export async function releaseNow(lease: SessionLease): Promise<void> {
  const state = leaseStates.get(lease);
  if (state !== undefined) state.keep = false;
  await lease.release();
}

/** The session's live lease over `lock` and its counter at `token` (kept for the next lease on release). */
function issueLease(fields: Omit<LeaseState, 'keep'>): SessionLease {
  // `keep` first: a literal that starts with a spread is slow to make (CONTRIBUTING.md).
  const state: LeaseState = { keep: true, ...fields };
  const { paths, lock } = state;
  let released = false;
  const own: Omit<SessionLease, 'released'> & { [RELEASED_READ]: () => boolean } = {
    [RELEASED_READ]: () => released,
    sessionId: paths.sessionId,
    token: state.token.toString(),
    async isHeld(options: StorageCallOptions = {}) {
      options.signal?.throwIfAborted();
      return (await leaseChange(lease)) === undefined;
    },
    async renew(options: StorageCallOptions = {}) {
      options.signal?.throwIfAborted();
      const change = (await leaseChange(lease)) ?? ((await lock.renew()) ? undefined : 'lock-lost');
      if (change !== undefined) {
        throw new SessionTakeoverError({
          sessionId: paths.sessionId,
          phase: 'fence_check',
          change,
        });
      }
    },
    async release() {
      if (released) return;
      released = true;
      if (liveLeases.get(paths.lockPath) === lease) liveLeases.delete(paths.lockPath);
      const kept: KeptLease = {
        lockPath: paths.lockPath,
        handle: lock,
        counter: state.counter,
        token: state.token,
        ttlMs: state.ttlMs,
        events: state.events,
      };
      // Kept for the next lease of the session while nobody asks for it (see `kept-leases.ts`).
      if (state.keep && paths.kept.keep(kept)) return;
      await letGoKept(kept);
    },
  };
  const lease = Object.setPrototypeOf(own, releasedProperty) as SessionLease;
  leaseStates.set(lease, state);
  liveLeases.set(paths.lockPath, lease);
  return lease;
}

/**
 * Whether `lease` is still its session's current lease: `stale-token` when the counter moved
 * past its token (a newer lease was issued), `lock-lost` when the lock file is no longer its own,
 * `undefined` while it holds. One `lstat` while the lock file is still the lease's own: then no
 * newer token can exist (tokens are only issued under the lock, and a lock taken over is renamed
 * away and never linked back; see `parkLease`), so the counter is read only to name the change
 * of a lease that lost its lock, or was released. `proven`: no `lstat` while the lock's last look
 * still proves it its own (`LockProof`; an owned write's check, not the lease's own `isHeld`).
 */
export async function leaseChange(
  lease: SessionLease,
  proven = false,
): Promise<'stale-token' | 'lock-lost' | undefined> {
  const state = leaseStates.get(lease);
  if (state === undefined) {
    throw new SessionFenceError({
      message: 'This lease was not issued by a transcript store of @keel/session-fence',
    });
  }
  const { fileSystem, fencePath } = state.paths;
  if (lease.released) {
    const current = await readCounterAt(fileSystem, fencePath);
    return current > state.token ? 'stale-token' : 'lock-lost';
  }
  if (await (proven ? state.lock.isHeldOrProven() : state.lock.isHeld())) return undefined;
  const current = await readFenceCounter(fileSystem, state.counter.fd, fencePath);
  return current > state.token ? 'stale-token' : 'lock-lost';
}

/** A lease kept while its holder waits (`parkLease`). */
export interface ParkedLease {
  /** Whether the lock is still the lease's own (one `lstat`; see `parkLease`). */
  stillHeld(): Promise<boolean>;
  /** Stops listening for waiters (the holder takes the lease back, or lets it go). */
  unpark(): void;
}

/**
 * Keeps `lease` while its holder waits (a turn's model call) instead of letting it go, for as
 * long as nobody else asks for the lock: `onWanted` is called once when a waiter's ask is seen
 * (at once for a waiter of this store, else at the lease's next heartbeat), and the holder then
 * lets the lease go. `undefined` (let it go now) for a lease of another store, a released one, or
 * one asked for already.
 *
 * `stillHeld` is the lock file alone: while it is still the lease's own file, the lease was held
 * the whole time (a lock taken over is renamed away and never linked back, and a new token is
 * only issued under the lock), so the counter needs no read; no `lstat` either while the lock's
 * last look still proves it its own (`LockProof`).
 */
export function parkLease(lease: SessionLease, onWanted: () => void): ParkedLease | undefined {
  const state = leaseStates.get(lease);
  if (state === undefined || lease.released || state.lock.wanted) return undefined;
  const stop = state.lock.onWanted(onWanted);
  return {
    stillHeld: () => state.lock.isHeldOrProven(),
    unpark: stop,
  };
}

/** Checks that `lease` was issued for `lockPath` (a lease of another session cannot write here). */
export function assertLeaseFor(lease: SessionLease, lockPath: string, sessionId: string): void {
  const state = leaseStates.get(lease);
  if (state === undefined || state.paths.lockPath !== lockPath) {
    throw new SessionFenceError({
      message: `The lease given is not a lease of session ${sessionId} in this sessions directory`,
    });
  }
}

/** The live lease this process holds on `lockPath`, if any. */
export function liveLeaseOf(lockPath: string): SessionLease | undefined {
  const lease = liveLeases.get(lockPath);
  return lease !== undefined && !lease.released ? lease : undefined;
}

async function readCounterAt(fileSystem: FileSystem, path: string): Promise<bigint> {
  const opened = await openRegularFileIfExists(fileSystem, path, constants.O_RDONLY);
  if (opened === undefined) return 0n;
  try {
    return await readFenceCounter(fileSystem, opened.fd, path);
  } finally {
    await fileSystem.close(opened.fd);
  }
}

/** The change a refused write reports, as the error the port promises. */
export function refusal(
  sessionId: string,
  change: TranscriptChangeKind,
  phase: 'write' | 'fence_check' = 'write',
): SessionTakeoverError {
  return new SessionTakeoverError({ sessionId, phase, change });
}
