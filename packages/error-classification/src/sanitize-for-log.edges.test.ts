import { describe, expect, it } from 'vitest';
import { sanitizeForLog } from './sanitize-for-log';

/** An ANSI escape sequence: four characters of input that leave nothing in the output. */
const RESET = '\u001b[0m';

describe('sanitizeForLog at its edges', () => {
  it('never caps below two characters: one kept, then the marker', () => {
    expect(sanitizeForLog('abc', { maxLength: 1 })).toBe('a…');
    expect(sanitizeForLog('abc', { maxLength: 0 })).toBe('a…');
  });

  it('reads 8 characters per output character plus 64 of input, for escape sequences that go', () => {
    // maxLength 2 reads 80 characters: 20 of escape sequences leave the whole text.
    expect(sanitizeForLog(`${RESET.repeat(5)}ok`, { maxLength: 2 })).toBe('ok');
    expect(sanitizeForLog(`${RESET.repeat(19)}ok`, { maxLength: 2 })).toBe('ok');
    const exactly80 = `${RESET.repeat(18)}ok\u001b[1;2m`;
    expect(exactly80).toHaveLength(80);
    expect(sanitizeForLog(exactly80, { maxLength: 2 })).toBe('ok');
    expect(sanitizeForLog(`${RESET.repeat(20)}ok`, { maxLength: 2 })).toBe('…');
  });

  it('does not leave half a surrogate pair where it stops reading', () => {
    // maxLength 10 reads 144 characters: the 144th is the first half of 😀.
    const text = `${RESET.repeat(35)}abc😀tail`;
    expect(sanitizeForLog(text, { maxLength: 10 })).toBe('abc…');
  });
});
