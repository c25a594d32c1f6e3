import { describe, expect, it } from 'vitest';
import { createIdempotencyCache } from './idempotency-cache';

describe('createIdempotencyCache', () => {
  it('a repeat within the time to live joins the first answer; after it, runs again', async () => {
    let now = 0;
    let runs = 0;
    const cache = createIdempotencyCache<string>({ ttlMs: 1_000, now: () => now });
    const work = async () => `answer ${++runs}`;
    const first = cache.run('k', work);
    const second = cache.run('k', work);
    expect([first.repeated, second.repeated]).toEqual([false, true]);
    expect(await second.result).toBe('answer 1');
    now = 999;
    expect(await cache.run('k', work).result).toBe('answer 1');
    now = 1_000;
    expect(await cache.run('k', work).result).toBe('answer 2');
    expect(runs).toBe(2);
  });

  it('a concurrent repeat waits for the first; a failure or an answer not kept is not repeated', async () => {
    let release: (value: string) => void = () => undefined;
    const cache = createIdempotencyCache<string>({ ttlMs: 60_000, keep: (v) => v === 'good' });
    const first = cache.run('k', () => new Promise((resolve) => (release = resolve)));
    const joined = cache.run('k', async () => 'never');
    release('bad');
    expect(await joined.result).toBe('bad');
    await first.result;
    expect(cache.run('k', async () => 'good').repeated).toBe(false);
    const failing = cache.run('f', async () => {
      throw new Error('down');
    });
    await expect(failing.result).rejects.toThrow('down');
    expect(cache.run('f', async () => 'good').repeated).toBe(false);
  });

  it('keeps at most maxEntries, dropping the oldest', () => {
    const cache = createIdempotencyCache<string>({ ttlMs: 60_000, maxEntries: 2 });
    for (const key of ['a', 'b', 'c']) cache.run(key, async () => key);
    expect(cache.size).toBe(2);
    expect(cache.run('a', async () => 'again').repeated).toBe(false);
  });
});
