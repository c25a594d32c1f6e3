import { describe, expect, it } from 'vitest';
import { createSystemClock } from '../src/system-clock.js';

describe('createSystemClock', () => {
  it('never wakes before now() + ms (a Node timer alone wakes a millisecond early now and then)', async () => {
    const clock = createSystemClock();
    const early: number[] = [];
    for (let index = 0; index < 400; index += 1) {
      const ms = 1 + (index % 7);
      const before = clock.now();
      await clock.sleep(ms);
      const slept = clock.now() - before;
      if (slept < ms) early.push(slept - ms);
    }
    expect(early).toEqual([]);
  });

  it('a sleep of 0 or less returns on the next turn of the loop', async () => {
    const clock = createSystemClock();
    await expect(clock.sleep(0)).resolves.toBeUndefined();
    await expect(clock.sleep(-5)).resolves.toBeUndefined();
  });

  it('an abort ends the sleep with the signal’s reason', async () => {
    const clock = createSystemClock();
    const controller = new AbortController();
    const sleeping = clock.sleep(60_000, controller.signal);
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(sleeping).rejects.toMatchObject({ cause: reason });
  });
});
