import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeBackoffDelay, MAX_RETRY_AFTER_MS, sleep } from './backoff';

describe('computeBackoffDelay', () => {
  it('grows exponentially with equal jitter, capped', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        (retry, baseDelayMs, maxDelayMs, jitter) => {
          const nominal = Math.min(maxDelayMs, baseDelayMs * 2 ** (retry - 1));
          const delay = computeBackoffDelay(retry, {
            baseDelayMs,
            maxDelayMs,
            random: () => jitter,
          });
          expect(delay).toBeGreaterThanOrEqual(Math.floor(nominal / 2));
          expect(delay).toBeLessThanOrEqual(Math.ceil(nominal));
        },
      ),
    );
  });

  it('honours retry-after, capped at 60 s', () => {
    expect(computeBackoffDelay(1, { retryAfterMs: 2500 })).toBe(2500);
    expect(computeBackoffDelay(3, { retryAfterMs: 3_600_000 })).toBe(MAX_RETRY_AFTER_MS);
  });

  it('uses different delays for different jitter draws', () => {
    const low = computeBackoffDelay(2, { baseDelayMs: 1000, random: () => 0 });
    const high = computeBackoffDelay(2, { baseDelayMs: 1000, random: () => 0.99 });
    expect(low).toBe(1000);
    expect(high).toBeGreaterThan(low);
  });
});

describe('sleep', () => {
  it('wakes on abort with the abort reason', async () => {
    const controller = new AbortController();
    const waiting = sleep(600_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });

  it('rejects at once when already aborted', async () => {
    await expect(sleep(600_000, AbortSignal.abort(new Error('already')))).rejects.toThrow(
      'already',
    );
  });

  it('resolves after the delay otherwise', async () => {
    await expect(sleep(1, new AbortController().signal)).resolves.toBeUndefined();
  });
});
