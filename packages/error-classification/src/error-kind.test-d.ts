import { describe, expectTypeOf, it } from 'vitest';
import type { RuleMatch } from './classifier-rule';
import type { ErrorClassification } from './error-classification';
import type { ErrorKind } from './error-kind';

type Expected =
  | 'caller_abort'
  | 'provider_abort'
  | 'connection'
  | 'timeout'
  | 'rate_limit'
  | 'overloaded'
  | 'server_error'
  | 'auth'
  | 'billing'
  | 'context_overflow'
  | 'invalid_request'
  | 'model_not_found'
  | 'content_policy'
  | 'session_takeover'
  | 'coordination'
  | 'unknown';

describe('ErrorKind', () => {
  it('is exactly the 16 literals of DESIGN.md', () => {
    expectTypeOf<ErrorKind>().toEqualTypeOf<Expected>();
  });

  it('is what ErrorClassification.kind holds', () => {
    expectTypeOf<ErrorClassification['kind']>().toEqualTypeOf<Expected>();
  });

  it('rules return a kind or an object with a kind', () => {
    expectTypeOf<'timeout'>().toExtend<RuleMatch>();
    expectTypeOf<{ kind: 'billing'; code: string }>().toExtend<RuleMatch>();
    expectTypeOf<'retry'>().not.toExtend<RuleMatch>();
    expectTypeOf<{ code: string }>().not.toExtend<RuleMatch>();
  });
});
