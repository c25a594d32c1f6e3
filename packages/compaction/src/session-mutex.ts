import { untilAbort } from './until-abort';

/** Internal: at most one holder per key at a time, in arrival order. */
export interface SessionMutex {
  /**
   * Waits until no earlier caller holds `key`, then holds it until the returned function is
   * called. Rejects with `signal.reason` as soon as `signal` aborts while waiting; a waiter that
   * leaves does not hold up the ones behind it.
   */
  acquire(key: string, signal: AbortSignal): Promise<() => void>;
  /** Whether some caller holds or waits for `key`. */
  isBusy(key: string): boolean;
}

/**
 * One compaction per session at a time within a process: a second `compact()` of the same session
 * waits for the first, then plans on what the first wrote. Across processes the caller's session
 * lock (e.g. `@keel/session-fence`) serializes writers.
 */
export function createSessionMutex(): SessionMutex {
  const tails = new Map<string, Promise<void>>();
  return {
    async acquire(key, signal) {
      signal.throwIfAborted();
      const previous = tails.get(key) ?? Promise.resolve();
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const tail = previous.then(() => held);
      tails.set(key, tail);
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key);
      });
      try {
        await untilAbort(previous, signal);
      } catch (error) {
        release();
        throw error;
      }
      return release;
    },
    isBusy: (key) => tails.has(key),
  };
}
