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
});
