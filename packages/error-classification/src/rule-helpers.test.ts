import { describe, expect, it } from 'vitest';
import { classifyError } from './classify-error';
import { collectErrorFacts } from './collect-error-facts';
import { codeSet, findCode, isThrottle } from './rule-helpers';

const OVERFLOW_WORDING = 'prompt is too long for the context window';

describe('isThrottle keeps throttles out of context_overflow', () => {
  it.each(['rate_limit_error', 'rate_limit_exceeded', 'ThrottlingException', 'RESOURCE_EXHAUSTED'])(
    'a %s code with overflow wording and no status is a rate limit',
    (code) => {
      const error = { error: { code, message: OVERFLOW_WORDING } };
      expect(isThrottle(collectErrorFacts(error))).toBe(true);
      expect(classifyError(error).kind).toBe('rate_limit');
    },
  );

  it.each([
    'Rate limit reached',
    'Limit on tokens per min reached',
    'Limit on tokens per day reached',
    'Request too large (TPM)',
    'Request was throttled',
    'Please wait before trying again',
  ])('"%s" with overflow wording and no status is never context_overflow', (wording) => {
    const error = new Error(`${wording}: ${OVERFLOW_WORDING}`);
    expect(isThrottle(collectErrorFacts(error))).toBe(true);
    expect(classifyError(error).kind).not.toBe('context_overflow');
  });

  it('a 429 with overflow wording and no throttle code or wording is a rate limit', () => {
    const error = { status: 429, error: { message: OVERFLOW_WORDING } };
    expect(isThrottle(collectErrorFacts(error))).toBe(true);
    expect(classifyError(error).kind).toBe('rate_limit');
  });

  it('overflow wording alone is no throttle', () => {
    expect(isThrottle(collectErrorFacts(new Error(OVERFLOW_WORDING)))).toBe(false);
    expect(classifyError(new Error(OVERFLOW_WORDING)).kind).toBe('context_overflow');
  });
});

describe('findCode', () => {
  it('finds a code whatever its case, and reports it as the error spelled it', () => {
    const facts = collectErrorFacts({ code: 'upstream_failed', cause: { code: 'EconnReset' } });
    expect(findCode(facts, codeSet('ECONNRESET'))).toBe('EconnReset');
    expect(classifyError({ code: 'upstream_failed', cause: { code: 'EconnReset' } })).toMatchObject(
      { kind: 'connection', code: 'EconnReset' },
    );
  });

  it('finds an error name when no code matches, codes first', () => {
    const named = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
    const facts = collectErrorFacts(named);
    expect(findCode(facts, codeSet('throttlingexception'))).toBe('ThrottlingException');
    expect(findCode(facts, codeSet('ECONNRESET'))).toBe(undefined);
    const both = Object.assign(new Error('x'), { name: 'TimeoutError', code: 'ETIMEDOUT' });
    expect(findCode(collectErrorFacts(both), codeSet('TimeoutError', 'ETIMEDOUT'))).toBe(
      'ETIMEDOUT',
    );
  });

  it('reports the code that decided the kind, not the first code found', () => {
    const error = { code: 'gateway_wrapped', cause: { code: 'ECONNREFUSED' } };
    expect(classifyError(error)).toMatchObject({ kind: 'connection', code: 'ECONNREFUSED' });
    expect(collectErrorFacts(error).codes[0]).toBe('gateway_wrapped');
  });
});
