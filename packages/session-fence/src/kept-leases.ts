import { linkSync, lstatSync, renameSync, unlinkSync } from 'node:fs';
import type { LeaseEvent } from '@keel/spec';
import type { BorrowedCounter } from './fence-counters';
import type { InternalLockHandle } from './session-lock';

/** Leases a store keeps at most while nobody uses them; past it, the least recently kept goes. */
export const MAX_KEPT_LEASES = 1024;
/** A lease kept this long without being taken again is let go (the store's default). */
export const KEPT_IDLE_MS = 5_000;

/** Where a lease's events go: the lease that holds the lock now, or nowhere while it is kept. */
export interface LeaseEvents {
  sessionId: string;
  token: string;
  onEvent: ((event: LeaseEvent) => void) | undefined;
}

/** A released lease whose lock (and counter descriptor) the store still holds. */
export interface KeptLease {
  lockPath: string;
  handle: InternalLockHandle;
  counter: BorrowedCounter;
  /** The token the counter holds: nobody else can have moved it while the lock is still ours. */
  token: bigint;
  /** The ttl the lease asked for (a lease asking another one does not take it over). */
  ttlMs: number | undefined;
  events: LeaseEvents;
}

/**
 * The leases one store keeps between holds (a turn's end and the next turn's start), while nobody
 * asks for their locks: `take` hands one back to the next `lease` of its session, which then costs
 * a check that the lock is still its own and a new token, instead of a new lock file and a
 * removal. A kept lease is let go (its lock removed, its counter given back) as soon as a waiter
 * asks for its lock (`onWanted`: in memory, or a link seen by the lock's watch or heartbeat),
 * after `KEPT_IDLE_MS` unused, when more than `MAX_KEPT_LEASES` are kept, when the store closes,
 * and at process exit (removed synchronously, so no lock of a process that exited is left).
 */
export interface KeptLeases {
  /** Keeps the lease's lock; `false` when it cannot be kept (asked for, lost, or closed). */
  keep(lease: KeptLease): boolean;
  /** The lease kept for `lockPath`, no longer kept (the caller reuses it or lets it go). */
  take(lockPath: string): KeptLease | undefined;
  /** Lets go of the lease kept for `lockPath`, if any. */
  letGo(lockPath: string): Promise<void>;
  /** Lets go of every kept lease and keeps none from now on. */
  close(): Promise<void>;
  readonly size: number;
}

interface Entry extends KeptLease {
  stop(): void;
}

/** Kept leases of every store of this process, removed at exit. */
const keptAtExit = new Set<Entry>();
let exitHookInstalled = false;

/** Lets go of a lease taken out of the store (or never kept): its lock, then its counter. */
export async function letGoKept(lease: KeptLease): Promise<void> {
  try {
    await lease.handle.release();
  } finally {
    await lease.counter.giveBack();
  }
}

export function createKeptLeases(options: { max?: number; idleMs?: number } = {}): KeptLeases {
  const max = options.max ?? MAX_KEPT_LEASES;
  const idleMs = options.idleMs ?? KEPT_IDLE_MS;
  const entries = new Map<string, Entry>();
  let closed = false;

  function remove(entry: Entry): boolean {
    if (entries.get(entry.lockPath) !== entry) return false;
    entries.delete(entry.lockPath);
    keptAtExit.delete(entry);
    entry.stop();
    return true;
  }

  async function letGoEntry(entry: Entry): Promise<void> {
    if (remove(entry)) await letGoKept(entry);
  }

  // Nobody to report a failure to: a lock that could not be removed goes stale on its own.
  const letGoLater = (entry: Entry) => void letGoEntry(entry).catch(() => {});

  return {
    keep(lease) {
      const { handle } = lease;
      if (closed || idleMs <= 0 || handle.released || handle.wanted) return false;
      if (entries.has(lease.lockPath)) return false;
      const entry: Entry = { stop: () => {}, ...lease };
      lease.events.onEvent = undefined;
      const timer = setTimeout(() => letGoLater(entry), idleMs);
      timer.unref();
      const unsubscribe = handle.onWanted(() => letGoLater(entry));
      entry.stop = () => {
        clearTimeout(timer);
        unsubscribe();
      };
      entries.set(lease.lockPath, entry);
      keptAtExit.add(entry);
      if (!exitHookInstalled) {
        exitHookInstalled = true;
        process.once('exit', removeKeptAtExit);
      }
      if (entries.size > max) {
        const oldest = entries.values().next().value;
        if (oldest !== undefined) letGoLater(oldest);
      }
      return true;
    },
    take(lockPath) {
      const entry = entries.get(lockPath);
      if (entry === undefined || !remove(entry)) return undefined;
      return entry;
    },
    async letGo(lockPath) {
      const entry = entries.get(lockPath);
      if (entry !== undefined) await letGoEntry(entry);
    },
    async close() {
      closed = true;
      await Promise.allSettled([...entries.values()].map(letGoEntry));
    },
    get size() {
      return entries.size;
    },
  };
}

/**
 * At exit, each kept lock is removed as its holder removes it (`removeLockFile`, synchronously):
 * renamed to a name of its own, unlinked if it is still its file, else linked back.
 */
function removeKeptAtExit(): void {
  for (const { lockPath, handle } of keptAtExit) {
    const { file } = handle;
    const tomb = `${file.privatePath}.exit`;
    try {
      renameSync(lockPath, tomb);
      const moved = lstatSync(tomb, { bigint: true });
      if (moved.dev !== file.dev || moved.ino !== file.ino) {
        try {
          linkSync(tomb, lockPath);
        } catch {
          // Another lock is there already: the moved one was never ours to remove.
        }
      }
      unlinkSync(tomb);
    } catch {
      // Gone already, or not removable: the lock goes stale (its pid is dead) as today.
    }
    try {
      unlinkSync(file.privatePath);
    } catch {
      // Gone already; else the next store on this host removes it (`sweepAbandonedLockFiles`).
    }
  }
}
