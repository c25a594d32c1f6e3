import { describe, expect, it } from 'vitest';
import type { ClassifierRule, RuleMatch } from './classifier-rule';
import { createClassifier } from './create-classifier';
import type { ErrorClassification } from './error-classification';
import { isErrorKind } from './error-kind';

const PROVIDERS = [
  'anthropic',
  'openai',
  'azure',
  'google',
  'bedrock',
  'openrouter',
  'groq',
  'deepseek',
  'ollama',
  'openai-compatible',
];
const FIELDS = ['kind', 'retryable', 'status', 'code', 'provider', 'retryAfterMs', 'cooldownMs'];

/** Every promise `ErrorClassification` makes, checked on one result. */
function expectValid(result: ErrorClassification): void {
  expect(isErrorKind(result.kind), 'kind').toBe(true);
  expect(typeof result.retryable, 'retryable').toBe('boolean');
  expect(Object.keys(result).filter((key) => ![...FIELDS, 'message'].includes(key))).toEqual([]);
  const { status, code, provider, retryAfterMs, cooldownMs, message } = result;
  if (status !== undefined) {
    expect(Number.isInteger(status) && status >= 400 && status <= 599, `status ${status}`).toBe(
      true,
    );
  }
  if (code !== undefined) expect(typeof code === 'string' && code.length > 0, 'code').toBe(true);
  if (provider !== undefined) expect(PROVIDERS, 'provider').toContain(provider);
  if (retryAfterMs !== undefined) {
    expect(Number.isInteger(retryAfterMs), 'retryAfterMs').toBe(true);
    expect(retryAfterMs >= 0 && retryAfterMs <= 60_000, `retryAfterMs ${retryAfterMs}`).toBe(true);
    expect(cooldownMs, 'both waits').toBe(undefined);
  }
  if (cooldownMs !== undefined) {
    expect(Number.isInteger(cooldownMs), 'cooldownMs').toBe(true);
    expect(cooldownMs > 60_000 && cooldownMs <= 86_400_000, `cooldownMs ${cooldownMs}`).toBe(true);
  }
  if (message !== undefined) expect(typeof message, 'message').toBe('string');
}

/** A classifier whose one rule answers `match` (typed loosely: rules are untyped JavaScript too). */
function classifierAnswering(match: unknown) {
  return createClassifier({ rules: [{ name: 'app', match: () => match as RuleMatch }] });
}

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

  it('ignores each invalid field a rule returns and keeps its kind; the facts fill the gap', () => {
    const error = {
      status: 503,
      headers: { 'retry-after': '2' },
      error: { code: 'busy_now', message: 'busy' },
    };
    const result = classifierAnswering({
      kind: 'rate_limit',
      status: '429',
      retryable: 'yes',
      retryAfterMs: -5,
      code: 42,
      provider: 'acme',
      message: { text: 'x' },
      extra: 'not a field',
    }).classify(error);
    expect(result).toEqual({
      kind: 'rate_limit',
      retryable: true,
      status: 503,
      code: 'busy_now',
      retryAfterMs: 2000,
      message: 'busy',
    });
    expectValid(result);
  });

  it.each([
    ['status', [Number.NaN, Number.POSITIVE_INFINITY, 429.5, 99, 200, 600, -429, '503', null]],
    ['retryAfterMs', [Number.NaN, Number.POSITIVE_INFINITY, -1, 60_001, '100', null]],
    ['cooldownMs', [Number.NaN, Number.POSITIVE_INFINITY, -1, 5_000, '120000', null]],
    ['retryable', ['true', 1, null]],
    ['code', ['', 7, null, { toString: () => 'x' }]],
    ['provider', ['acme', '', 'constructor', 3, { toString: () => 'openai' }, ['openai']]],
    ['message', [7, null, ['a']]],
  ] as const)('never lets a bad %s through', (field, values) => {
    for (const value of values) {
      const result = classifierAnswering({ kind: 'server_error', [field]: value }).classify(
        new Error('x'),
      );
      expect(result.kind).toBe('server_error');
      expect(result[field as keyof ErrorClassification], `${field}: ${String(value)}`).not.toBe(
        value,
      );
      expectValid(result);
    }
  });

  it('keeps valid fields a rule returns, a long wait as cooldownMs', () => {
    const result = classifierAnswering({
      kind: 'rate_limit',
      status: 429,
      retryable: false,
      code: 'ACME_SLOW',
      provider: 'openrouter',
      cooldownMs: 300_000,
      message: 'slow down',
    }).classify(new Error('x'));
    expect(result).toEqual({
      kind: 'rate_limit',
      retryable: false,
      status: 429,
      code: 'ACME_SLOW',
      provider: 'openrouter',
      cooldownMs: 300_000,
      message: 'slow down',
    });
  });

  it('a rule wait replaces the one the headers give, and never adds a second one', () => {
    const error = { status: 429, headers: { 'retry-after': '3600' } };
    const result = classifierAnswering({ kind: 'rate_limit', retryAfterMs: 5000 }).classify(error);
    expect(result.retryAfterMs).toBe(5000);
    expect(result.cooldownMs).toBe(undefined);
  });

  it('a field that throws when read is ignored, not thrown', () => {
    const hostile = {
      kind: 'billing',
      get code(): string {
        throw new Error('getter bug');
      },
    };
    const result = classifierAnswering(hostile).classify({ error: { code: 'over_quota' } });
    expect(result).toMatchObject({ kind: 'billing', code: 'over_quota' });
  });

  it('skips a rule whose answer is not a kind or an object with one', () => {
    for (const answer of [null, 42, ['billing'], { kind: 'nope' }, { kind: 'constructor' }]) {
      const result = classifierAnswering(answer).classify('socket hang up');
      expect(result.kind, JSON.stringify(answer)).toBe('connection');
      expectValid(result);
    }
  });
});
