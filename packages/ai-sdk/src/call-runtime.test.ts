import { describe, expect, it } from 'vitest';
import { sleep } from './call-runtime.js';

describe('sleep', () => {
  it('never wakes before Date.now() has moved ms on (a Node timer alone wakes a millisecond early now and then)', async () => {
    const early: number[] = [];
    for (let index = 0; index < 400; index += 1) {
      const ms = 1 + (index % 7);
      const before = Date.now();
      await sleep(ms, undefined);
      const slept = Date.now() - before;
      if (slept < ms) early.push(slept - ms);
    }
    expect(early).toEqual([]);
  });

  it('an abort rejects at once with the signal’s own reason', async () => {
    const controller = new AbortController();
    const sleeping = sleep(60_000, controller.signal);
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(sleeping).rejects.toBe(reason);
  });
});
