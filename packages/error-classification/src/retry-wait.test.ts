import { describe, expect, it } from 'vitest';
import type { ErrorFacts } from './collect-error-facts';
import { findRequestedWait, waitFields } from './retry-wait';

/** Facts with only the body nodes given (no headers). */
const facts = (nodes: unknown[]): ErrorFacts => ({
  nodes,
  codes: [],
  names: [],
  messages: [],
  text: '',
});
const google = (retryDelay: unknown) => ({ details: [{ retryDelay }] });

describe('findRequestedWait: Google RetryInfo.retryDelay in a body', () => {
  it('skips nodes that are no objects (null, text) and reads the first retryDelay', () => {
    expect(findRequestedWait(facts([null, 'quota exceeded', google('13s')]))).toBe(13_000);
  });

  it('"0.25s" and "0.5s" are 250 and 500 ms', () => {
    expect(findRequestedWait(facts([google('0.25s')]))).toBe(250);
    expect(findRequestedWait(facts([google('0.5s')]))).toBe(500);
  });

  it('only a whole "<seconds>s" counts: "x13s", "13sx" and "13" are no delay', () => {
    for (const delay of ['x13s', '13sx', '13', 13]) {
      expect(findRequestedWait(facts([google(delay)])), String(delay)).toBeUndefined();
    }
  });
});

describe('waitFields', () => {
  it('a negative or non-finite wait reports nothing', () => {
    expect(waitFields(-5)).toEqual({});
    expect(waitFields(Number.NaN)).toEqual({});
    expect(waitFields(undefined)).toEqual({});
  });

  it('up to 60 s is retryAfterMs, longer is cooldownMs, capped at a day', () => {
    expect(waitFields(60_000)).toEqual({ retryAfterMs: 60_000 });
    expect(waitFields(60_001)).toEqual({ cooldownMs: 60_001 });
    expect(waitFields(10 * 86_400_000)).toEqual({ cooldownMs: 86_400_000 });
  });
});
