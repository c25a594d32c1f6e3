import { openFenceCounter } from './fence-counter';
import type { FileSystem } from './file-system';

/** Counter descriptors kept open while no lease uses them, most recently used last. */
export const MAX_IDLE_COUNTERS = 64;
/** An idle counter descriptor is closed after this long unused. */
export const COUNTER_IDLE_MS = 30_000;

/**
 * The fencing-token counters of one store, each opened once and shared by the leases of its
 * session: a lease borrows the descriptor and gives it back at release, and the descriptor stays
 * open for the next lease (an open and a close fewer per lease) until it has been idle for
 * `COUNTER_IDLE_MS`, or more than `MAX_IDLE_COUNTERS` others are idle, or the store forgets them
 * all (its directory was removed: a counter created again is another file).
 *
 * A kept descriptor is trusted to be the counter's file: the store never removes or replaces a
 * counter (tokens only grow because it stays), and a lease is also checked against its lock file.
 */
export interface FenceCounters {
  /** The counter's descriptor at `path`, opened (or created) when none is kept. */
  borrow(path: string): Promise<BorrowedCounter>;
  /** Closes every kept descriptor as soon as no lease uses it; the next borrow opens afresh. */
  forgetAll(): void;
}

/** A counter descriptor lent to one lease. */
export interface BorrowedCounter {
  fd: number;
  /** Gives it back: kept open for the next lease, or closed when forgotten meanwhile. Once. */
  giveBack(): Promise<void>;
}

interface Kept {
  path: string;
  fd: number;
  users: number;
  forgotten: boolean;
  idleTimer: ReturnType<typeof setTimeout> | undefined;
}

export function createFenceCounters(
  fileSystem: FileSystem,
  options: { maxIdle?: number; idleMs?: number } = {},
): FenceCounters {
  const maxIdle = options.maxIdle ?? MAX_IDLE_COUNTERS;
  const idleMs = options.idleMs ?? COUNTER_IDLE_MS;
  const kept = new Map<string, Kept>();
  const opening = new Map<string, Promise<Kept>>();
  let generation = 0;

  function stopTimer(entry: Kept): void {
    if (entry.idleTimer !== undefined) clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
  }

  /** Keeps it no longer: closed now when idle, else by the last lease that gives it back. */
  function forget(entry: Kept): void {
    if (entry.forgotten) return;
    entry.forgotten = true;
    stopTimer(entry);
    if (kept.get(entry.path) === entry) kept.delete(entry.path);
    // A descriptor nobody uses any more; a failed close has no one to report to.
    if (entry.users === 0) fileSystem.close(entry.fd).catch(() => {});
  }

  function trim(): void {
    let idle = 0;
    for (const entry of kept.values()) if (entry.users === 0) idle += 1;
    for (const entry of [...kept.values()]) {
      if (idle <= maxIdle) break;
      if (entry.users > 0) continue;
      forget(entry);
      idle -= 1;
    }
  }

  async function openKept(path: string): Promise<Kept> {
    const since = generation;
    const fd = await openFenceCounter(fileSystem, path);
    // Forgotten while it was being opened: lent to the leases waiting for it, then closed.
    const forgotten = since !== generation;
    const entry: Kept = { path, fd, users: 0, forgotten, idleTimer: undefined };
    if (!forgotten) kept.set(path, entry);
    return entry;
  }

  function lend(entry: Kept): BorrowedCounter {
    entry.users += 1;
    stopTimer(entry);
    if (!entry.forgotten) {
      // Most recently used last: the first idle ones are closed first.
      kept.delete(entry.path);
      kept.set(entry.path, entry);
    }
    let returned = false;
    return {
      fd: entry.fd,
      async giveBack() {
        if (returned) return;
        returned = true;
        entry.users -= 1;
        if (entry.users > 0) return;
        if (entry.forgotten) {
          await fileSystem.close(entry.fd);
          return;
        }
        entry.idleTimer = setTimeout(() => forget(entry), idleMs);
        entry.idleTimer.unref?.();
        trim();
      },
    };
  }

  return {
    async borrow(path) {
      const entry = kept.get(path);
      if (entry !== undefined) return lend(entry);
      let pending = opening.get(path);
      if (pending === undefined) {
        const started = openKept(path).finally(() => {
          if (opening.get(path) === started) opening.delete(path);
        });
        pending = started;
        opening.set(path, pending);
      }
      const opened = await pending;
      return lend(opened);
    },
    forgetAll() {
      generation += 1;
      opening.clear();
      for (const entry of [...kept.values()]) forget(entry);
    },
  };
}
