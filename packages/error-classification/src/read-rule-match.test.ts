import { describe, expect, it } from 'vitest';
import { readRuleMatch } from './read-rule-match';

/** The fields kept of a match of kind `server_error` with `field` set to `value`. */
const kept = (field: string, value: unknown) =>
  readRuleMatch({ kind: 'server_error', [field]: value })?.fields;

describe('readRuleMatch keeps a field exactly at the edges of what is valid', () => {
  it('keeps a status of 400 and of 599, and drops 399 and 600', () => {
    expect(kept('status', 400)).toEqual({ status: 400 });
    expect(kept('status', 599)).toEqual({ status: 599 });
    expect(kept('status', 399)).toEqual({});
    expect(kept('status', 600)).toEqual({});
  });

  it('keeps a retryAfterMs of 0 and of exactly 60 s, and drops one just outside', () => {
    expect(kept('retryAfterMs', 0)).toEqual({ retryAfterMs: 0 });
    expect(kept('retryAfterMs', 60_000)).toEqual({ retryAfterMs: 60_000 });
    expect(kept('retryAfterMs', -0.5)).toEqual({});
    expect(kept('retryAfterMs', 60_000.5)).toEqual({});
  });

  it('keeps a cooldownMs only above 60 s: exactly 60 s is a retryAfterMs, not a cooldown', () => {
    expect(kept('cooldownMs', 60_000)).toEqual({});
    expect(kept('cooldownMs', 60_000.5)).toEqual({ cooldownMs: 60_000.5 });
  });

  it('drops a wait that is not a finite number, even one that compares as in range', () => {
    expect(kept('cooldownMs', Number.POSITIVE_INFINITY)).toEqual({});
    expect(kept('retryAfterMs', '100')).toEqual({});
    expect(kept('cooldownMs', '120000')).toEqual({});
  });

  it('drops an empty message, as it drops an empty code', () => {
    expect(kept('message', '')).toEqual({});
    expect(kept('message', ' ')).toEqual({ message: ' ' });
  });

  it('keeps retryable false as well as true', () => {
    expect(kept('retryable', false)).toEqual({ retryable: false });
    expect(kept('retryable', true)).toEqual({ retryable: true });
  });
});

describe('readRuleMatch reads a bare kind', () => {
  it('takes a kind string as a match with no fields, and skips any other string', () => {
    expect(readRuleMatch('billing')).toEqual({ kind: 'billing', fields: {} });
    expect(readRuleMatch('billing_error')).toBe(undefined);
    expect(readRuleMatch('')).toBe(undefined);
  });

  it('skips anything but a string or a plain object: a function carrying a kind, null, a number', () => {
    expect(readRuleMatch(Object.assign(() => 'billing', { kind: 'billing' }))).toBe(undefined);
    expect(readRuleMatch(null)).toBe(undefined);
    expect(readRuleMatch(402)).toBe(undefined);
  });

  it('skips a kind whose getter throws', () => {
    const hostile = {
      get kind(): string {
        throw new Error('getter bug');
      },
    };
    expect(readRuleMatch(hostile)).toBe(undefined);
  });
});
