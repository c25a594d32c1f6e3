import { describe, expect, it } from 'vitest';
import type { RuleContext } from './classifier-rule';
import { createClassifier } from './create-classifier';

function aborted(): AbortSignal {
  const controller = new AbortController();
  controller.abort();
  return controller.signal;
}

/** A revoked proxy: even `Array.isArray` throws on it, so no fact can be read from it at all. */
function unreadable(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

describe('createClassifier on an error it cannot read at all', () => {
  it('answers unknown, not retryable, and asks no rule', () => {
    const asked: string[] = [];
    const classifier = createClassifier({
      rules: [{ name: 'spy', match: () => void asked.push('spy') }],
    });
    expect(classifier.classify(unreadable())).toEqual({ kind: 'unknown', retryable: false });
    expect(classifier.classify(unreadable(), { signal: new AbortController().signal })).toEqual({
      kind: 'unknown',
      retryable: false,
    });
    expect(asked).toEqual([]);
  });

  it("answers caller_abort when the caller's own signal is aborted", () => {
    expect(createClassifier().classify(unreadable(), { signal: aborted() })).toEqual({
      kind: 'caller_abort',
      retryable: false,
    });
  });
});

describe('createClassifier builds what rules see and what it returns', () => {
  it('gives rules a context without a signal member when the caller passed none', () => {
    const contexts: RuleContext[] = [];
    const classifier = createClassifier({
      rules: [{ name: 'spy', match: (_error, context) => void contexts.push(context) }],
    });
    classifier.classify(new Error('x'));
    classifier.classify(new Error('x'), {});
    expect(contexts.map((context) => Object.keys(context))).toEqual([['facts'], ['facts']]);
  });

  it('caps a code at 100 characters, the marker included; a message at 500', () => {
    const code = `E_${'X'.repeat(150)}`;
    const message = 'm'.repeat(600);
    const result = createClassifier({
      rules: [{ name: 'long', match: () => ({ kind: 'server_error', code, message }) }],
    }).classify(new Error('x'));
    expect(result.code).toBe(`${code.slice(0, 99)}…`);
    expect(result.message).toBe(`${message.slice(0, 499)}…`);
    // A code found on the error itself is capped the same way.
    expect(createClassifier().classify({ code }).code).toBe(`${code.slice(0, 99)}…`);
  });

  it("fills a wait or a message a rule got wrong from the error's own", () => {
    const error = { status: 429, headers: { 'retry-after': '2' }, error: { message: 'slow down' } };
    const result = createClassifier({
      rules: [
        {
          name: 'wrong',
          match: () => ({ kind: 'rate_limit', cooldownMs: Number.POSITIVE_INFINITY, message: '' }),
        },
      ],
    }).classify(error);
    expect(result).toMatchObject({ kind: 'rate_limit', retryAfterMs: 2000, message: 'slow down' });
  });
});
