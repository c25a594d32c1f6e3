import { describe, expect, it } from 'vitest';
import { sanitizeForLog } from './sanitize-for-log';

describe('sanitizeForLog', () => {
  it('escapes newlines, carriage returns and tabs visibly (no forged log lines)', () => {
    expect(sanitizeForLog('a\nINFO forged\r\tb')).toBe('a\\nINFO forged\\r\\tb');
  });

  it('escapes other C0 controls and DEL', () => {
    expect(sanitizeForLog('x\u0000y\u0007z\u007f')).toBe('x\\x00y\\x07z\\x7f');
  });

  it('escapes C1 controls', () => {
    expect(sanitizeForLog('a\u0085b\u0090c')).toBe('a\\x85b\\x90c');
  });

  it('removes ANSI escape sequences, including OSC and the C1 CSI', () => {
    expect(sanitizeForLog('\u001b[31mred\u001b[0m')).toBe('red');
    expect(sanitizeForLog('\u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007')).toBe('link');
    expect(sanitizeForLog('\u009b2Jclear')).toBe('clear');
  });

  it('escapes Unicode line separators and bidi overrides', () => {
    expect(sanitizeForLog('a\u2028b\u202ec')).toBe('a\\u2028b\\u202ec');
  });

  it('caps the length with an ellipsis marker', () => {
    const result = sanitizeForLog('x'.repeat(1000));
    expect(result.length).toBe(500);
    expect(result.endsWith('…')).toBe(true);
    expect(sanitizeForLog('abcdef', { maxLength: 4 })).toBe('abc…');
    expect(sanitizeForLog('abcd', { maxLength: 4 })).toBe('abcd');
  });

  it('never ends on half an escape or half a surrogate pair', () => {
    expect(sanitizeForLog('ab\ncd', { maxLength: 4 })).toBe('ab…');
    expect(sanitizeForLog('a😀b', { maxLength: 3 })).toBe('a…');
  });

  it('caps huge input without escaping all of it', () => {
    const result = sanitizeForLog('\n'.repeat(1_000_000), { maxLength: 50 });
    expect(result.length).toBeLessThanOrEqual(50);
    expect(result.endsWith('…')).toBe(true);
  });

  it('stringifies non-strings safely', () => {
    expect(sanitizeForLog(42)).toBe('42');
    expect(sanitizeForLog(Object.create(null))).toBe('[object Object]');
  });

  it('an unterminated OSC does not swallow the rest of the line', () => {
    const result = sanitizeForLog('before \u001b]8;;https://evil.example after the link');
    expect(result).toMatch(/^before .*after the link$/);
    expect(result).not.toContain('\u001b');
  });

  it('strips other escape sequences as util.stripVTControlCharacters does', () => {
    expect(sanitizeForLog('\u001b]0;title\u0007ok')).toBe('ok');
    expect(sanitizeForLog('\u001b]8;;https://x\u001b\\link\u001b]8;;\u001b\\')).toBe('link');
    expect(sanitizeForLog('\u001b(Bplain')).toBe('plain');
  });

  it('escapes backslashes, so escaped text cannot be forged', () => {
    expect(sanitizeForLog('C:\\new\\table')).toBe('C:\\\\new\\\\table');
    const realNewline = sanitizeForLog('a\nINFO forged');
    const typedEscape = sanitizeForLog('a\\nINFO forged');
    expect(typedEscape).toBe('a\\\\nINFO forged');
    expect(typedEscape).not.toBe(realNewline);
  });

  it('escapes LRM, RLM, ALM and every other bidi control', () => {
    expect(sanitizeForLog('a\u200eb\u200fc\u061cd')).toBe('a\\u200eb\\u200fc\\u061cd');
    const bidi = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069';
    expect(sanitizeForLog(bidi)).toBe(
      '\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069',
    );
  });

  it('escapes zero-width characters and the BOM', () => {
    expect(sanitizeForLog('\ufeffa\u200bb\u200cc\u200dd\u2060e')).toBe(
      '\\ufeffa\\u200bb\\u200cc\\u200dd\\u2060e',
    );
  });

  it('escapes invisible tag characters (astral format characters)', () => {
    expect(sanitizeForLog('ok\u{e0041}\u{e0042}')).toBe('ok\\u{e0041}\\u{e0042}');
  });

  it('escapes lone surrogates and keeps pairs', () => {
    expect(sanitizeForLog('a\ud800b\udc00c')).toBe('a\\ud800b\\udc00c');
    expect(sanitizeForLog('x\ud83d')).toBe('x\\ud83d');
    expect(sanitizeForLog('😀')).toBe('😀');
  });

  it('never cuts an escaped backslash or a long escape in half', () => {
    expect(sanitizeForLog('abc\\d', { maxLength: 5 })).toBe('abc…');
    expect(sanitizeForLog('ab\u{e0041}cd', { maxLength: 10 })).toBe('ab…');
    expect(sanitizeForLog('ab\u200bcd', { maxLength: 9 })).toBe('ab\\u200b…');
  });
});
