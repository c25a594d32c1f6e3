import { describe, expect, it } from 'vitest';
import type { ClassifierRule } from './classifier-rule';
import { createClassifier } from './create-classifier';

const quotaRule: ClassifierRule = {
  name: 'acme-gateway-quota',
  match: (_error, { facts }) =>
    facts.codes.includes('ACME_QUOTA') ? { kind: 'billing', code: 'ACME_QUOTA' } : undefined,
};

describe('createClassifier', () => {
  it('runs application rules before the built-in ones', () => {
    const classifier = createClassifier({
      rules: [
        {
          name: 'all-503-are-overloaded',
          match: (_e, { facts }) => (facts.status === 503 ? 'overloaded' : undefined),
        },
      ],
    });
    const error = { status: 503, error: { message: 'Service Unavailable' } };
    expect(classifier.classify(error).kind).toBe('overloaded');
    expect(createClassifier().classify(error).kind).toBe('server_error');
  });

  it('never overrides a caller abort: the caller signal decides before application rules', () => {
    const classifier = createClassifier({
      rules: [{ name: 'everything-is-overloaded', match: () => 'overloaded' }],
    });
    const controller = new AbortController();
    controller.abort();
    const error = { status: 529, error: { type: 'overloaded_error' } };
    expect(classifier.classify(error, { signal: controller.signal }).kind).toBe('caller_abort');
    expect(classifier.classify(error, { signal: new AbortController().signal }).kind).toBe(
      'overloaded',
    );
  });

  it('lets a rule set fields; the rest come from the facts and the kind policy', () => {
    const classifier = createClassifier({ rules: [quotaRule] });
    const error = {
      status: 429,
      headers: { 'retry-after': '2' },
      error: { code: 'ACME_QUOTA', message: 'out' },
    };
    expect(classifier.classify(error)).toEqual({
      kind: 'billing',
      retryable: false,
      status: 429,
      code: 'ACME_QUOTA',
      retryAfterMs: 2000,
      message: 'out',
    });
  });

  it('lets a rule override retryable', () => {
    const classifier = createClassifier({
      rules: [
        { name: 'retry-this-one', match: () => ({ kind: 'invalid_request', retryable: true }) },
      ],
    });
    expect(classifier.classify(new Error('x')).retryable).toBe(true);
  });

  it('falls through to built-in rules when no application rule matches', () => {
    const classifier = createClassifier({ rules: [quotaRule] });
    expect(classifier.classify({ code: 'ECONNRESET' }).kind).toBe('connection');
  });

  it('skips a rule that throws or returns something that is not a kind', () => {
    const classifier = createClassifier({
      rules: [
        {
          name: 'broken',
          match: () => {
            throw new Error('bug in rule');
          },
        },
        { name: 'bogus', match: () => 'retry_later' as unknown as 'unknown' },
      ],
    });
    expect(classifier.classify('socket hang up').kind).toBe('connection');
  });

  it('passes the signal to rules', () => {
    const seen: Array<AbortSignal | undefined> = [];
    const classifier = createClassifier({
      rules: [{ name: 'spy', match: (_e, context) => void seen.push(context.signal) }],
    });
    const signal = new AbortController().signal;
    classifier.classify(new Error('x'), { signal });
    expect(seen).toEqual([signal]);
  });

  it('sanitizes a message a rule supplies', () => {
    const classifier = createClassifier({
      rules: [{ name: 'm', match: () => ({ kind: 'unknown', message: 'a\nb' }) }],
    });
    expect(classifier.classify(null).message).toBe('a\\nb');
  });
});
