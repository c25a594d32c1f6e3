import type { ErrorKind as SpecErrorKind } from '@keel/spec';
import { describe, expectTypeOf, it } from 'vitest';
import type { RuleMatch } from './classifier-rule';
import type { ErrorClassification } from './error-classification';
import type { ERROR_KINDS, ErrorKind } from './error-kind';

describe('ErrorKind', () => {
  it('is the spec type, not a copy', () => {
    expectTypeOf<ErrorKind>().toEqualTypeOf<SpecErrorKind>();
  });

  it('ERROR_KINDS lists exactly the kinds of the spec: none missing, none extra', () => {
    expectTypeOf<(typeof ERROR_KINDS)[number]>().toEqualTypeOf<SpecErrorKind>();
  });

  it('is what ErrorClassification.kind holds', () => {
    expectTypeOf<ErrorClassification['kind']>().toEqualTypeOf<SpecErrorKind>();
  });

  it('rules return a kind or an object with a kind', () => {
    expectTypeOf<'timeout'>().toExtend<RuleMatch>();
    expectTypeOf<{ kind: 'billing'; code: string }>().toExtend<RuleMatch>();
    expectTypeOf<'retry'>().not.toExtend<RuleMatch>();
    expectTypeOf<{ code: string }>().not.toExtend<RuleMatch>();
  });
});
