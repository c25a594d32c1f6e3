import { describe, expect, it } from 'vitest';
import { classifyError } from './classify-error';
import { collectErrorFacts } from './collect-error-facts';

describe('values that are not objects where an object may sit', () => {
  it('null headers are skipped, for the response’s own headers', () => {
    const error = { status: 429, headers: null, $response: { headers: { 'retry-after': '3' } } };
    expect(collectErrorFacts(error).headers).toEqual({ 'retry-after': '3' });
    expect(classifyError(error)).toMatchObject({ kind: 'rate_limit', status: 429 });
  });

  it('a detail that is a function is no detail, even one carrying a reason', () => {
    const detail = Object.assign(() => undefined, { reason: 'FROM_A_FUNCTION' });
    expect(collectErrorFacts({ details: [detail, { reason: 'R' }] }).codes).toEqual(['R']);
  });
});
