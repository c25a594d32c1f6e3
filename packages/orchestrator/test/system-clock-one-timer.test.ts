// The real clock's sleep (system-clock.ts) under fake time: it waits on one timer for the whole
// span (no 1 ms polling for a long cooldown) and wakes when the span is over, not a tick later.
// `node:timers/promises` is the clock's outer boundary: its `setTimeout` is bound at import, out of
// reach of fake timers, so it is replaced by one on the (faked) global timer that records each wait.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSystemClock } from '../src/system-clock.js';

const waits = vi.hoisted(() => [] as number[]);
vi.mock('node:timers/promises', () => ({
  setTimeout: (ms: number) => {
    waits.push(ms);
    return new Promise<void>((resolve) => {
      globalThis.setTimeout(resolve, ms);
    });
  },
}));

beforeEach(() => {
  waits.length = 0;
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

function track(sleeping: Promise<void>): { done: boolean } {
  const state = { done: false };
  void sleeping.then(() => {
    state.done = true;
  });
  return state;
}

describe('createSystemClock sleep', () => {
  it('waits once, for the whole span, and is awake when that one timer fires', async () => {
    const clock = createSystemClock();
    const state = track(clock.sleep(5_000));
    await vi.advanceTimersToNextTimerAsync();
    expect(clock.now()).toBe(1_005_000);
    expect(state.done).toBe(true);
    expect(waits).toEqual([5_000]);
  });

  it('wakes once exactly ms have passed, not a tick later', async () => {
    const clock = createSystemClock();
    const state = track(clock.sleep(5_000));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(state.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(state.done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});
