import { describe, expect, it } from 'vitest';
import { ERROR_KINDS, type ErrorKind } from './error-kind';
import { isRetryable, KIND_POLICY, type KindAction } from './kind-policy';

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

  it("lists, per kind, the default reactions of DESIGN.md's table, in order", () => {
    const actions = Object.fromEntries(
      ERROR_KINDS.map((kind) => [kind, KIND_POLICY[kind].actions]),
    );
    expect(actions).toEqual({
      caller_abort: ['stop'],
      provider_abort: ['retry_same', 'fallback_model'],
      connection: ['retry_same', 'fallback_model'],
      timeout: ['retry_same', 'fallback_model'],
      rate_limit: ['rotate_profile', 'fallback_model'],
      overloaded: ['rotate_profile', 'fallback_model'],
      server_error: ['retry_same', 'fallback_model'],
      auth: ['rotate_profile', 'fallback_model'],
      billing: ['rotate_profile', 'fallback_model'],
      context_overflow: ['compact_and_retry', 'final'],
      invalid_request: ['final'],
      model_not_found: ['fallback_model'],
      content_policy: ['final'],
      session_takeover: ['resend'],
      coordination: ['final'],
      storage: ['final'],
      unknown: ['final'],
    });
  });

  it('lets only kinds that can fail over burn fallback candidates', () => {
    const burning = ERROR_KINDS.filter((kind) => KIND_POLICY[kind].burnsFallback);
    expect(burning).toEqual([
      'provider_abort',
      'connection',
      'timeout',
      'rate_limit',
      'overloaded',
      'server_error',
      'auth',
      'billing',
      'model_not_found',
    ]);
  });

  it('honours retry-after only for the kinds a provider asks to wait on: throttles and 5xx', () => {
    const waiting = ERROR_KINDS.filter((kind) => KIND_POLICY[kind].honorRetryAfter);
    expect(waiting).toEqual(['rate_limit', 'overloaded', 'server_error']);
  });

  it('bounds profile rotations for overloaded alone (one), and for no other kind', () => {
    const bounded = Object.fromEntries(
      ERROR_KINDS.filter((kind) => 'maxProfileRotations' in KIND_POLICY[kind]).map((kind) => [
        kind,
        KIND_POLICY[kind].maxProfileRotations,
      ]),
    );
    expect(bounded).toEqual({ overloaded: 1 });
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

const PROTOTYPE_KEYS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

describe('KIND_POLICY cannot be changed or tricked by prototype keys', () => {
  it('is frozen deeply: the table, each policy and each action list', () => {
    expect(Object.isFrozen(KIND_POLICY)).toBe(true);
    for (const kind of ERROR_KINDS) {
      expect(Object.isFrozen(KIND_POLICY[kind]), kind).toBe(true);
      expect(Object.isFrozen(KIND_POLICY[kind].actions), kind).toBe(true);
    }
    const writable = KIND_POLICY as unknown as Record<string, { retryable: boolean }>;
    expect(() => {
      writable.billing = { retryable: true };
    }).toThrow(TypeError);
    expect(() => {
      (writable.billing as { retryable: boolean }).retryable = true;
    }).toThrow(TypeError);
    expect(() => (KIND_POLICY.auth.actions as KindAction[]).push('retry_same')).toThrow(TypeError);
    expect(isRetryable('billing')).toBe(false);
  });

  it('holds the 16 kinds and nothing else, not even inherited keys', () => {
    expect(Object.keys(KIND_POLICY)).toEqual([...ERROR_KINDS]);
    for (const key of PROTOTYPE_KEYS) {
      expect((KIND_POLICY as unknown as Record<string, unknown>)[key], key).toBe(undefined);
    }
  });

  it('isRetryable answers false, a boolean, for anything that is not a kind', () => {
    for (const key of [...PROTOTYPE_KEYS, 'not_a_kind', '']) {
      expect(isRetryable(key as ErrorKind), key).toBe(false);
    }
  });
});
