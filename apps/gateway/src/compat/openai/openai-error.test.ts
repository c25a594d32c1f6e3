import type { CallOutcome } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { outcomeError } from './openai-error';

const failed = (fields: Partial<CallOutcome>): CallOutcome => ({
  kind: 'error',
  text: 'Safe copy.',
  content: [],
  callId: 'openai-1',
  turnId: 't',
  attempts: [],
  ...fields,
});

describe('outcomeError', () => {
  it('cooling candidates: 429 for rate limits, 503 for overloads, Retry-After rounded up', () => {
    expect(outcomeError(failed({ errorKind: 'rate_limit', retryAfterMs: 1_200 }))).toEqual({
      status: 429,
      headers: { 'retry-after': '2' },
      body: {
        error: {
          message: 'Safe copy.',
          type: 'rate_limit_error',
          param: null,
          code: 'rate_limit_exceeded',
        },
      },
    });
    expect(outcomeError(failed({ errorKind: 'overloaded', retryAfterMs: 10 }))).toMatchObject({
      status: 503,
      headers: { 'retry-after': '1' },
    });
  });

  it('a refused request is 400 (with the hint); the provider’s own auth is 502, not the client’s 401', () => {
    expect(outcomeError(failed({ errorKind: 'invalid_request' }), 'Check it.')).toMatchObject({
      status: 400,
      body: { error: { message: 'Safe copy. Check it.', type: 'invalid_request_error' } },
    });
    expect(outcomeError(failed({ errorKind: 'context_overflow' })).body.error.code).toBe(
      'context_length_exceeded',
    );
    for (const errorKind of ['auth', 'billing', 'timeout', 'connection', 'unknown'] as const) {
      expect(outcomeError(failed({ errorKind, retryAfterMs: 5_000 }))).toMatchObject({
        status: 502,
        headers: {},
      });
    }
  });

  it('a shutdown is 503 with a Retry-After even when no wait is known', () => {
    expect(outcomeError(failed({ kind: 'aborted', errorKind: 'caller_abort' }))).toMatchObject({
      status: 503,
      headers: { 'retry-after': '5' },
    });
  });
});
