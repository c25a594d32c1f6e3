import type { Clock } from '@keel/spec';

/** A clock whose time moves only when a test (or a sleep) moves it; sleeps return at once. */
export interface FakeClock extends Clock {
  advance(ms: number): void;
  /** Every sleep asked for, in order. */
  readonly sleeps: number[];
}

export function createFakeClock(start = Date.UTC(2026, 10, 30, 12)): FakeClock {
  let now = start;
  const sleeps: number[] = [];
  return {
    now: () => now,
    async sleep(ms, signal) {
      signal?.throwIfAborted();
      sleeps.push(ms);
      now += Math.max(0, ms);
      await Promise.resolve();
      signal?.throwIfAborted();
    },
    advance(ms) {
      now += ms;
    },
    sleeps,
  };
}
