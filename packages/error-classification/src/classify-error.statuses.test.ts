import { describe, expect, it } from 'vitest';
import { classifyError } from './classify-error';

/**
 * What each HTTP status decides on its own: a bare `{ status }` carries no code, name or
 * wording, so only the built-in rules' status checks can give it a kind.
 */
const BY_STATUS: ReadonlyArray<readonly [number, string]> = [
  [400, 'invalid_request'],
  [401, 'auth'],
  [402, 'billing'],
  [403, 'auth'],
  [404, 'model_not_found'],
  [408, 'timeout'],
  [409, 'server_error'],
  [413, 'context_overflow'],
  [422, 'invalid_request'],
  [429, 'rate_limit'],
  [451, 'invalid_request'],
  [498, 'overloaded'],
  [499, 'connection'],
  [500, 'server_error'],
  [501, 'server_error'],
  [503, 'server_error'],
  [529, 'overloaded'],
  [599, 'server_error'],
];

describe('a status alone', () => {
  it.each(BY_STATUS)('%i is %s', (status, kind) => {
    expect(classifyError({ status })).toEqual({
      kind,
      retryable: ['rate_limit', 'server_error', 'timeout', 'connection'].includes(kind),
      status,
    });
  });
});

describe('a status with codes and wording', () => {
  it('reports the code that decided a 5xx or a 4xx, not the first code found', () => {
    const server = { status: 503, error: { code: 'acme_wrapped', type: 'api_error' } };
    expect(classifyError(server)).toMatchObject({ kind: 'server_error', code: 'api_error' });
    const client = { status: 400, error: { code: 'acme_rejected', type: 'invalid_request_error' } };
    expect(classifyError(client)).toMatchObject({
      kind: 'invalid_request',
      code: 'invalid_request_error',
    });
  });

  it('a 4xx that words a server error stays the 4xx: server wording counts only without a status', () => {
    const error = { status: 400, error: { message: 'upstream said: internal server error' } };
    expect(classifyError(error).kind).toBe('invalid_request');
    expect(classifyError(new Error('upstream said: internal server error')).kind).toBe(
      'server_error',
    );
  });
});
