import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './parse-retry-after';

/**
 * The edges of reading a wait from headers (each a Stryker survivor before): headers that are
 * no headers, a `get` that throws, array values, whitespace, and what counts as a number.
 */
describe('parseRetryAfter at its edges', () => {
  it('null headers, a get that throws, a non-string array value: no wait, and no throw', () => {
    expect(parseRetryAfter(null)).toBeUndefined();
    const throwing = {
      get(): string | null {
        throw new Error('headers already consumed');
      },
    };
    expect(parseRetryAfter(throwing)).toBeUndefined();
    // Such an object is not read as a plain record either, whatever its own keys.
    expect(parseRetryAfter(Object.assign(throwing, { 'retry-after': '7' }))).toBeUndefined();
    // A record from untyped JavaScript may hold anything: only a string is a value.
    expect(parseRetryAfter({ 'retry-after': [5] as unknown as string[] })).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': ['4', '9'] })).toBe(4000);
  });

  it('values are trimmed: " 1500 " ms and " 3 " s are read as 1500 and 3000', () => {
    expect(parseRetryAfter({ 'retry-after-ms': ' 1500 ' })).toBe(1500);
    expect(parseRetryAfter({ 'retry-after': ' 3 ' })).toBe(3000);
  });

  it('seconds with any number of decimals: "1.25" is 1250 ms', () => {
    expect(parseRetryAfter({ 'retry-after': '1.25' })).toBe(1250);
    expect(parseRetryAfter({ 'retry-after-ms': '12.75' })).toBe(13);
  });

  it('a date that starts and ends with digits is a date, not a number', () => {
    const at = '2099-01-01T00:00:05.000+00:00';
    const now = Date.parse('2099-01-01T00:00:00.000Z');
    expect(parseRetryAfter({ 'retry-after': at }, { now })).toBe(5000);
    // Digits with words around them are neither a number nor a date.
    expect(parseRetryAfter({ 'retry-after': 'in 5' }, { now })).toBeUndefined();
  });
});
