import { describe, expect, it } from 'vitest';
import { classifyError } from './classify-error';
import { collectErrorFacts } from './collect-error-facts';

/** `inner` wrapped in `hops` causes. */
function wrapped(hops: number, inner: unknown): unknown {
  let error = inner;
  for (let index = 0; index < hops; index++) error = { cause: error };
  return error;
}

describe('JSON embedded in text is a provider body', () => {
  it('in a text error or a text cause, its message is the provider’s own', () => {
    expect(collectErrorFacts('503 {"message":"from the body"}').primaryMessage).toBe(
      'from the body',
    );
    const error = { message: 'outer', cause: '500 {"message":"from the body"}' };
    expect(collectErrorFacts(error).primaryMessage).toBe('from the body');
    expect(classifyError(error).message).toBe('from the body');
  });

  it('in an error’s message, its message is the provider’s own', () => {
    const error = new Error('400 {"message":"from the body"}');
    expect(collectErrorFacts(error).primaryMessage).toBe('from the body');
    expect(classifyError(error).message).toBe('from the body');
  });
});

describe('depth of what a text or a list holds', () => {
  it('JSON in a text counts one level below the text', () => {
    // The text sits 7 causes deep, so its JSON is at the depth bound: read, its causes not followed.
    const text = 'x {"code":"OWN","cause":{"code":"BEYOND"}}';
    expect(collectErrorFacts(wrapped(7, text)).codes).toEqual(['OWN']);
    expect(collectErrorFacts(wrapped(6, text)).codes).toEqual(['OWN', 'BEYOND']);
  });

  it('the items of a list count one level below the list', () => {
    expect(collectErrorFacts([wrapped(7, { code: 'DEEP' })]).codes).toEqual(['DEEP']);
    expect(collectErrorFacts([wrapped(8, { code: 'DEEP' })]).codes).toEqual([]);
  });
});
