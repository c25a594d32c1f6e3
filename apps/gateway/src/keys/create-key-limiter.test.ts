import { describe, expect, it } from 'vitest';
import { createKeyLimiter } from './create-key-limiter';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('createKeyLimiter', () => {
  it('admits rpm requests in a sliding minute, then says when the oldest one leaves it', () => {
    const time = clock();
    const limiter = createKeyLimiter({ rpm: 3, now: time.now });
    expect(limiter.admit()).toEqual({ admitted: true });
    time.advance(10_000);
    expect(limiter.admit()).toEqual({ admitted: true });
    expect(limiter.admit()).toEqual({ admitted: true });
    time.advance(5_000);
    // The first admission (15 s ago) leaves the minute in 45 s.
    expect(limiter.admit()).toEqual({ admitted: false, limit: 'rpm', retryAfterMs: 45_000 });
    time.advance(44_999);
    expect(limiter.admit().admitted).toBe(false);
    time.advance(1);
    expect(limiter.admit()).toEqual({ admitted: true });
    expect(limiter.lastMinute().requests).toBe(3);
  });

  it('refuses while the last minute reported tpm tokens, until enough of them age out', () => {
    const time = clock();
    const limiter = createKeyLimiter({ tpm: 100, now: time.now });
    expect(limiter.admit().admitted).toBe(true);
    limiter.recordTokens(60);
    time.advance(20_000);
    expect(limiter.admit().admitted).toBe(true);
    limiter.recordTokens(50);
    time.advance(10_000);
    // 110 tokens in the minute; the first 60 leave it 30 s from now, leaving 50 (< 100).
    expect(limiter.admit()).toEqual({ admitted: false, limit: 'tpm', retryAfterMs: 30_000 });
    time.advance(30_000);
    expect(limiter.admit()).toEqual({ admitted: true });
    expect(limiter.lastMinute()).toEqual({ requests: 2, tokens: 50 });
  });

  it('refuses at exactly tpm tokens, and waits until the minute holds fewer than tpm', () => {
    const time = clock();
    const limiter = createKeyLimiter({ tpm: 100, now: time.now });
    limiter.recordTokens(50);
    time.advance(20_000);
    limiter.recordTokens(50);
    expect(limiter.admit().admitted).toBe(false);
    limiter.recordTokens(50);
    time.advance(10_000);
    // 150 tokens: without the first 50 the minute still holds 100, so it waits for the next ones.
    expect(limiter.admit()).toEqual({ admitted: false, limit: 'tpm', retryAfterMs: 50_000 });
  });

  it('counts a refused request against nothing, and limits nothing it was not given', () => {
    const time = clock();
    const limiter = createKeyLimiter({ rpm: 1, now: time.now });
    expect(limiter.admit().admitted).toBe(true);
    for (let i = 0; i < 5; i += 1) expect(limiter.admit().admitted).toBe(false);
    time.advance(60_000);
    expect(limiter.admit().admitted).toBe(true);
    const open = createKeyLimiter({ now: time.now });
    open.recordTokens(1_000_000);
    for (let i = 0; i < 100; i += 1) expect(open.admit().admitted).toBe(true);
  });
});
