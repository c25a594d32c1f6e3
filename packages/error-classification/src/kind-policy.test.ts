import { describe, expect, it } from 'vitest';
import { ERROR_KINDS } from './error-kind';
import { isRetryable, KIND_POLICY } from './kind-policy';

describe('KIND_POLICY', () => {
  it('answers "retry same target?" as DESIGN.md\'s table does', () => {
    const retryable = ERROR_KINDS.filter((kind) => isRetryable(kind));
    expect(retryable).toEqual([
      'provider_abort',
      'connection',
      'timeout',
      'rate_limit',
      'server_error',
    ]);
  });

  it('gives each kind its default action', () => {
    expect(KIND_POLICY.caller_abort.actions).toEqual(['stop']);
    expect(KIND_POLICY.overloaded).toMatchObject({ maxProfileRotations: 1, retryable: false });
    expect(KIND_POLICY.rate_limit).toMatchObject({ honorRetryAfter: true });
    expect(KIND_POLICY.context_overflow.actions[0]).toBe('compact_and_retry');
    expect(KIND_POLICY.model_not_found.actions).toEqual(['fallback_model']);
    expect(KIND_POLICY.session_takeover.actions).toEqual(['resend']);
    expect(KIND_POLICY.coordination).toMatchObject({ actions: ['final'], burnsFallback: false });
    expect(KIND_POLICY.caller_abort.burnsFallback).toBe(false);
  });
});
