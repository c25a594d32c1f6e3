import { describe, expect, it } from 'vitest';
import { ERROR_KINDS, isErrorKind } from './error-kind';

describe('ERROR_KINDS / isErrorKind', () => {
  it('lists the 17 kinds once each', () => {
    expect(ERROR_KINDS).toHaveLength(17);
    expect(new Set(ERROR_KINDS).size).toBe(17);
  });

  it('recognises kinds only', () => {
    expect(isErrorKind('rate_limit')).toBe(true);
    expect(isErrorKind('RATE_LIMIT')).toBe(false);
    expect(isErrorKind(undefined)).toBe(false);
  });
});
