import { describe, expect, it } from 'vitest';
import { sanitizeForLog } from './sanitize-for-log';

/**
 * An ANSI reset, as colouring CLIs (chalk, a test runner's stderr) put into error messages: four
 * characters of input that leave nothing in the output, so the output reaches the end of what is read.
 */
const RESET = '\u001b[0m';

describe('sanitizeForLog where it stops reading', () => {
  it('drops the last character read only when it is the first half of a surrogate pair', () => {
    // maxLength 10 reads 144 characters: 😀 (2) + 35 resets (140) + "ab"; the 144th is "b", a whole
    // character, so it stays even though a complete pair appears earlier in what is read.
    const text = `😀${RESET.repeat(35)}abcdef`;
    expect(sanitizeForLog(text, { maxLength: 10 })).toBe('😀ab…');
  });
});
