import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeBackoffDelay, MAX_RETRY_AFTER_MS } from './backoff';

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
