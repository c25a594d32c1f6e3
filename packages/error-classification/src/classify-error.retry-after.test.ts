import { describe, expect, it } from 'vitest';
import { classifyError } from './classify-error';

/*
 * A wait a turn may sleep through (0–60 s) is `retryAfterMs`; a longer one is reported as
 * `cooldownMs` (capped at 24 h) for a breaker or profile cooldown, never dropped. One or the
 * other, never both.
 */

const HOUR = 3_600_000;

function waits(headers: Record<string, string>) {
  const { retryAfterMs, cooldownMs } = classifyError({ status: 429, headers });
  return { retryAfterMs, cooldownMs };
}

describe('retry-after above 60 s', () => {
  it('retry-after in seconds', () => {
    expect(waits({ 'retry-after': '3600' })).toEqual({ retryAfterMs: undefined, cooldownMs: HOUR });
    expect(waits({ 'retry-after': '61' })).toEqual({ retryAfterMs: undefined, cooldownMs: 61_000 });
  });

  it('retry-after-ms', () => {
    expect(waits({ 'retry-after-ms': '90000' })).toEqual({
      retryAfterMs: undefined,
      cooldownMs: 90_000,
    });
  });

  it('retry-after as an HTTP date', () => {
    const inTenMinutes = new Date(Date.now() + 10 * 60_000).toUTCString();
    const { retryAfterMs, cooldownMs } = waits({ 'retry-after': inTenMinutes });
    expect(retryAfterMs).toBe(undefined);
    // HTTP dates have whole seconds: somewhat under ten minutes, never more.
    expect(cooldownMs).toBeGreaterThan(8 * 60_000);
    expect(cooldownMs).toBeLessThanOrEqual(10 * 60_000);
  });

  it('a Gemini RetryInfo retryDelay', () => {
    const error = {
      error: {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '120s' }],
      },
    };
    expect(classifyError(error)).toMatchObject({ kind: 'rate_limit', cooldownMs: 120_000 });
    expect(classifyError(error).retryAfterMs).toBe(undefined);
  });

  it('is capped at 24 hours', () => {
    expect(waits({ 'retry-after': '999999999' }).cooldownMs).toBe(24 * HOUR);
  });
});

describe('retry-after within 60 s', () => {
  it('stays retryAfterMs, without cooldownMs', () => {
    expect(waits({ 'retry-after': '60' })).toEqual({ retryAfterMs: 60_000, cooldownMs: undefined });
    expect(waits({ 'retry-after': '0' })).toEqual({ retryAfterMs: 0, cooldownMs: undefined });
  });

  it('a negative, past or garbage value gives neither', () => {
    const past = new Date(Date.now() - 60_000).toUTCString();
    for (const value of ['-5', past, 'soon', 'NaN', 'Infinity']) {
      expect(waits({ 'retry-after': value }), value).toEqual({
        retryAfterMs: undefined,
        cooldownMs: undefined,
      });
    }
  });
});
