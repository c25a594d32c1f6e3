import { describe, expect, it } from 'vitest';
import { cliErrorKind } from './cli-error-kind';

describe('cliErrorKind', () => {
  it.each([
    [{ status: 529 }, 'overloaded'],
    [{ status: 503, text: 'API Error: 503 model is overloaded' }, 'overloaded'],
    [{ status: 429, text: 'insufficient_quota: you exceeded your quota' }, 'billing'],
    [{ status: 400, text: 'Your credit balance is too low' }, 'billing'],
    [{ status: 429 }, 'rate_limit'],
    [{ errorType: 'authentication_failed' }, 'auth'],
    [{ text: 'Please run /login · API Error: 401' }, 'auth'],
    [{ status: 404, text: 'model: claude-nope does not exist' }, 'model_not_found'],
    [
      { status: 400, text: 'prompt is too long: 300000 tokens > 200000 maximum' },
      'context_overflow',
    ],
    [{ status: 400 }, 'invalid_request'],
    [{ text: 'API Error: 502 Bad Gateway' }, 'server_error'],
    [{ text: 'something odd happened' }, 'unknown'],
    [{}, 'unknown'],
  ] as const)('%j → %s', (facts, kind) => {
    expect(cliErrorKind(facts)).toBe(kind);
  });
});
