import { describe, expect, it } from 'vitest';
import { keelError } from '../test/keel-error';
import { BUILTIN_RULES, CALLER_ABORT_RULE } from './builtin-rules';
import type { ClassifierRule } from './classifier-rule';
import { classifyError } from './classify-error';
import { collectErrorFacts } from './collect-error-facts';
import type { ErrorKind } from './error-kind';

/*
 * A rule's `name` is what tests and debugging show of it (`ClassifierRule.name`). Each built-in
 * rule is named after what it decides: here the rule that decides a sample error, found by
 * running the rules in the classifier's order, must carry the name the table gives it.
 */

const RULES: readonly ClassifierRule[] = [CALLER_ABORT_RULE, ...BUILTIN_RULES];

function aborted(): AbortSignal {
  const controller = new AbortController();
  controller.abort();
  return controller.signal;
}

/** The name of the first rule, in the classifier's order, that matches `error`. */
function decidingRule(error: unknown, signal?: AbortSignal): string | undefined {
  const context = { facts: collectErrorFacts(error), ...(signal === undefined ? {} : { signal }) };
  return RULES.find((rule) => rule.match(error, context) !== undefined)?.name;
}

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

const anthropic = (status: number, type: string, message: string) => ({
  status,
  error: { type: 'error', error: { type, message } },
});

interface NameCase {
  name: string;
  error: unknown;
  kind: ErrorKind;
  signal?: AbortSignal;
}

const CASES: readonly NameCase[] = [
  { name: 'caller-abort', error: new Error('stopped'), kind: 'caller_abort', signal: aborted() },
  {
    name: 'keel-kind',
    error: keelError({ name: 'SessionTakeoverError', keelKind: 'session_takeover', message: 'x' }),
    kind: 'session_takeover',
  },
  {
    name: 'storage-code',
    error: withCode('ENOSPC: no space left on device, write', 'ENOSPC'),
    kind: 'storage',
  },
  {
    name: 'billing',
    error: anthropic(400, 'invalid_request_error', 'Your credit balance is too low.'),
    kind: 'billing',
  },
  {
    name: 'content-policy',
    error: { status: 400, error: { code: 'content_filter', message: 'Filtered.' } },
    kind: 'content_policy',
  },
  {
    name: 'transient-server-code',
    error: Object.assign(new Error('The model is not ready.'), {
      name: 'ModelNotReadyException',
      $metadata: { httpStatusCode: 429 },
    }),
    kind: 'server_error',
  },
  {
    name: 'invalid-request-wording',
    error: anthropic(400, 'invalid_request_error', 'max_tokens: 300000 > 64000, the maximum'),
    kind: 'invalid_request',
  },
  {
    name: 'context-overflow',
    error: anthropic(400, 'invalid_request_error', 'prompt is too long: 250000 tokens > 200000'),
    kind: 'context_overflow',
  },
  {
    name: 'model-not-found',
    error: anthropic(404, 'not_found_error', 'model: claude-typo'),
    kind: 'model_not_found',
  },
  {
    name: 'overloaded',
    error: anthropic(529, 'overloaded_error', 'Overloaded'),
    kind: 'overloaded',
  },
  {
    name: 'rate-limit',
    error: anthropic(429, 'rate_limit_error', 'Number of requests has exceeded your limit.'),
    kind: 'rate_limit',
  },
  {
    name: 'auth',
    error: anthropic(401, 'authentication_error', 'invalid x-api-key'),
    kind: 'auth',
  },
  {
    name: 'timeout',
    error: withCode('connect ETIMEDOUT 10.0.0.1:443', 'ETIMEDOUT'),
    kind: 'timeout',
  },
  {
    name: 'provider-abort',
    error: new DOMException('This operation was aborted', 'AbortError'),
    kind: 'provider_abort',
  },
  { name: 'connection', error: withCode('read ECONNRESET', 'ECONNRESET'), kind: 'connection' },
  {
    name: 'server-error',
    error: anthropic(500, 'api_error', 'Internal server error'),
    kind: 'server_error',
  },
  {
    name: 'invalid-request',
    error: { status: 422, error: { message: 'Unprocessable Entity' } },
    kind: 'invalid_request',
  },
];

describe('built-in rule names', () => {
  it('are unique, non-empty and in the precedence order the classifier tries them', () => {
    const names = RULES.map((rule) => rule.name);
    expect(names).toEqual(CASES.map((testCase) => testCase.name));
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).not.toBe('');
  });

  it.each(CASES.map((testCase) => [testCase.name, testCase] as const))(
    'the %s rule decides its sample error',
    (name, { error, kind, signal }) => {
      expect(decidingRule(error, signal)).toBe(name);
      expect(classifyError(error, signal === undefined ? {} : { signal }).kind).toBe(kind);
    },
  );
});
