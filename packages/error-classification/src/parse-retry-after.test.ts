import { describe, expect, it } from 'vitest';
import { parseRetryAfter, readHeader } from './parse-retry-after';

describe('parseRetryAfter', () => {
  it('reads retry-after seconds', () => {
    expect(parseRetryAfter({ 'retry-after': '7' })).toBe(7000);
    expect(parseRetryAfter({ 'retry-after': '0.5' })).toBe(500);
    expect(parseRetryAfter({ 'retry-after': '0' })).toBe(0);
  });

  it('prefers retry-after-ms', () => {
    expect(parseRetryAfter({ 'retry-after-ms': '1234', 'retry-after': '9' })).toBe(1234);
  });

  it('falls back to retry-after when retry-after-ms is not a number', () => {
    expect(parseRetryAfter({ 'retry-after-ms': 'soon', 'retry-after': '2' })).toBe(2000);
  });

  it('reads an HTTP date relative to now', () => {
    const now = Date.parse('Sun, 29 Nov 2026 21:00:00 GMT');
    expect(parseRetryAfter({ 'retry-after': 'Sun, 29 Nov 2026 21:00:30 GMT' }, { now })).toBe(
      30_000,
    );
  });

  it('keeps only 0–60 s', () => {
    const now = Date.parse('Sun, 29 Nov 2026 21:00:00 GMT');
    expect(parseRetryAfter({ 'retry-after': '61' })).toBe(undefined);
    expect(parseRetryAfter({ 'retry-after': '60' })).toBe(60_000);
    expect(parseRetryAfter({ 'retry-after-ms': '60001' })).toBe(undefined);
    expect(parseRetryAfter({ 'retry-after': 'Sun, 29 Nov 2026 20:59:00 GMT' }, { now })).toBe(
      undefined,
    );
    expect(parseRetryAfter({ 'retry-after': 'Sun, 29 Nov 2026 22:00:00 GMT' }, { now })).toBe(
      undefined,
    );
    expect(parseRetryAfter({ 'retry-after': '-1' })).toBe(undefined);
  });

  it('honours a custom maximum', () => {
    expect(parseRetryAfter({ 'retry-after': '90' }, { maxMs: 120_000 })).toBe(90_000);
  });

  it('accepts a Headers object, case-insensitively', () => {
    expect(parseRetryAfter(new Headers({ 'Retry-After': '3' }))).toBe(3000);
    expect(parseRetryAfter({ 'RETRY-AFTER-MS': '40' })).toBe(40);
  });

  it('returns undefined for missing or garbage values', () => {
    expect(parseRetryAfter(undefined)).toBe(undefined);
    expect(parseRetryAfter({})).toBe(undefined);
    expect(parseRetryAfter({ 'retry-after': 'later' })).toBe(undefined);
  });
});

describe('readHeader', () => {
  it('reads arrays and numbers from plain records', () => {
    expect(readHeader({ 'retry-after': ['5', '6'] }, 'retry-after')).toBe('5');
    expect(readHeader({ 'retry-after': 5 }, 'Retry-After')).toBe('5');
  });
});
