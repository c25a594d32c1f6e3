import { describe, expect, it } from 'vitest';
import { BUILTIN_RULES } from './builtin-rules';
import type { ClassifierRule } from './classifier-rule';
import { collectErrorFacts } from './collect-error-facts';

/*
 * The invalid-request rule, alone. In the classifier the server-error rule runs first and takes
 * every 5xx, so a 5xx never reaches this rule there; this rule must still not call a 5xx the
 * caller's fault by itself (STYLE.md: test each guard alone, not hidden behind another).
 */

function rule(name: string): ClassifierRule {
  const found = BUILTIN_RULES.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no built-in rule named ${name}`);
  return found;
}

const match = (error: unknown) =>
  rule('invalid-request').match(error, { facts: collectErrorFacts(error) });

describe('the invalid-request rule alone', () => {
  it.each([500, 503, 599])('leaves a bare %i alone', (status) => {
    expect(match({ status, message: 'upstream failed' })).toBeUndefined();
  });

  it('takes 400 and 499, the edges of 4xx', () => {
    expect(match({ status: 400, message: 'bad' })).toBe('invalid_request');
    expect(match({ status: 499, message: 'bad' })).toBe('invalid_request');
  });

  it('a 5xx with an invalid-request code is still invalid_request (the code decides)', () => {
    const error = { status: 500, error: { type: 'invalid_request_error', message: 'bad' } };
    expect(match(error)).toEqual({ kind: 'invalid_request', code: 'invalid_request_error' });
  });
});
