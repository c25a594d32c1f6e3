import { describe, expect, it } from 'vitest';
import { keelError } from '../test/keel-error';
import { classifyError } from './classify-error';
import { collectErrorFacts } from './collect-error-facts';

function aborted(): AbortSignal {
  const controller = new AbortController();
  controller.abort();
  return controller.signal;
}

const abortError = () => new DOMException('This operation was aborted', 'AbortError');

describe('caller_abort versus provider_abort', () => {
  it('is caller_abort only when the caller signal is aborted', () => {
    expect(classifyError(abortError(), { signal: aborted() }).kind).toBe('caller_abort');
  });

  it('is provider_abort with an unaborted signal (the PR #97504 bug)', () => {
    expect(classifyError(abortError(), { signal: new AbortController().signal }).kind).toBe(
      'provider_abort',
    );
  });

  it('is provider_abort without a signal', () => {
    expect(classifyError(abortError()).kind).toBe('provider_abort');
    expect(classifyError('This operation was aborted').kind).toBe('provider_abort');
  });

  it('is never retryable as caller_abort and retryable as provider_abort', () => {
    expect(classifyError(abortError(), { signal: aborted() }).retryable).toBe(false);
    expect(classifyError(abortError()).retryable).toBe(true);
  });

  it('a caller abort wins over whatever the error says, keelKind included', () => {
    const takeover = keelError({
      name: 'SessionTakeoverError',
      keelKind: 'session_takeover',
      message: 'changed',
    });
    expect(classifyError(takeover, { signal: aborted() }).kind).toBe('caller_abort');
  });
});

describe('cause chains', () => {
  it('survives cycles', () => {
    const a = new Error('wrapper a') as Error & { cause?: unknown };
    const b = new Error('wrapper b', { cause: a });
    a.cause = b;
    expect(classifyError(a).kind).toBe('unknown');
    const c = Object.assign(new Error('outer'), { code: 'ECONNRESET' }) as Error & {
      cause?: unknown;
    };
    c.cause = c;
    expect(classifyError(c).kind).toBe('connection');
  });

  it('is bounded in depth', () => {
    let error: unknown = Object.assign(new Error('deep'), { code: 'ECONNRESET' });
    for (let index = 0; index < 50; index++) error = new Error(`layer ${index}`, { cause: error });
    expect(classifyError(error).kind).toBe('unknown');
    let shallow: unknown = Object.assign(new Error('deep'), { code: 'ECONNRESET' });
    for (let index = 0; index < 3; index++)
      shallow = new Error(`layer ${index}`, { cause: shallow });
    expect(classifyError(shallow).kind).toBe('connection');
  });

  it('visits each node of a cycle once', () => {
    const a = new Error('wrapper a') as Error & { cause?: unknown };
    a.cause = new Error('wrapper b', { cause: a });
    expect(collectErrorFacts(a).nodes).toHaveLength(2);
  });

  it('is bounded in size: at most 64 nodes of a wide tree', () => {
    const leaves = () => Array.from({ length: 16 }, (_, index) => new Error(`leaf ${index}`));
    const wide = new AggregateError(
      Array.from({ length: 16 }, () => new AggregateError(leaves())),
      'wide',
    );
    expect(collectErrorFacts(wide).nodes).toHaveLength(64);
  });

  it('reads AggregateError.errors', () => {
    const error = new AggregateError([
      new Error('x'),
      Object.assign(new Error('y'), { code: 'EPIPE' }),
    ]);
    expect(classifyError(error)).toMatchObject({ kind: 'connection', code: 'EPIPE' });
  });

  it('tolerates throwing getters and odd values', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('no');
        },
        has() {
          throw new Error('no');
        },
      },
    );
    expect(classifyError(hostile).kind).toBe('unknown');
    expect(classifyError(null).kind).toBe('unknown');
    expect(classifyError(42).kind).toBe('unknown');
    expect(classifyError(Symbol('x')).kind).toBe('unknown');
  });
});

describe('status versus wording', () => {
  it('transport wording does not override an HTTP status', () => {
    const error = Object.assign(new Error('llama runner process has terminated'), { status: 500 });
    expect(classifyError(error).kind).toBe('server_error');
    expect(classifyError('llama runner process has terminated').kind).toBe('connection');
  });

  it('abort wording does not override an HTTP status', () => {
    expect(classifyError({ status: 500, message: 'The operation was aborted' }).kind).toBe(
      'server_error',
    );
  });

  it('an abort caused by a socket reset is a connection failure, not provider_abort', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const abort = Object.assign(new Error('The operation was aborted', { cause: reset }), {
      name: 'AbortError',
    });
    expect(classifyError(abort)).toMatchObject({ kind: 'connection', code: 'ECONNRESET' });
  });

  it('a 429 is a throttle even when its wording sounds like context overflow', () => {
    const error = { status: 429, error: { message: 'Too many input tokens.' } };
    expect(classifyError(error).kind).toBe('rate_limit');
    expect(classifyError({ status: 400, error: { message: 'Too many input tokens.' } }).kind).toBe(
      'context_overflow',
    );
  });

  it('a content-policy code decides on a 400 without policy wording', () => {
    const error = {
      status: 400,
      error: { type: 'invalid_request_error', code: 'moderation_blocked', message: 'Rejected.' },
    };
    expect(classifyError(error)).toMatchObject({
      kind: 'content_policy',
      code: 'moderation_blocked',
    });
  });

  it('ignores non-error statuses (an in-stream error on a 200 response)', () => {
    const error = Object.assign(new Error('HTTP 200, then the stream terminated'), { status: 200 });
    const result = classifyError(error);
    expect(result.kind).toBe('connection');
    expect(result.status).toBe(undefined);
  });

  it('a 503 is overloaded only with overload wording', () => {
    expect(classifyError({ status: 503, error: { message: 'Service Unavailable' } }).kind).toBe(
      'server_error',
    );
    expect(
      classifyError({ status: 503, error: { message: 'The model is overloaded.' } }).kind,
    ).toBe('overloaded');
  });

  it('a throttle that mentions tokens is never context_overflow', () => {
    const bedrock = Object.assign(new Error('Too many tokens, please wait before trying again.'), {
      name: 'ThrottlingException',
      $metadata: { httpStatusCode: 429 },
    });
    expect(classifyError(bedrock).kind).toBe('rate_limit');
  });

  it('reads the status from $metadata, statusCode, and a body code', () => {
    expect(classifyError({ statusCode: 401 }).status).toBe(401);
    expect(classifyError({ $metadata: { httpStatusCode: 429 } }).kind).toBe('rate_limit');
    expect(classifyError({ error: { code: 402, message: 'x' } }).kind).toBe('billing');
  });

  it('maps bare statuses', () => {
    const kinds = [400, 401, 402, 403, 404, 408, 409, 413, 422, 429, 499, 500, 529].map(
      (status) => classifyError({ status }).kind,
    );
    expect(kinds).toEqual([
      'invalid_request',
      'auth',
      'billing',
      'auth',
      'model_not_found',
      'timeout',
      'server_error',
      'context_overflow',
      'invalid_request',
      'rate_limit',
      'connection',
      'server_error',
      'overloaded',
    ]);
  });
});

describe('a response body cut short', () => {
  it('is connection only for a SyntaxError with JSON.parse truncation wording and no status', () => {
    expect(classifyError(new SyntaxError('Unexpected end of JSON input')).kind).toBe('connection');
    expect(classifyError(new Error('Unexpected end of JSON input')).kind).toBe('unknown');
    const html = new SyntaxError('Unexpected token \'<\', "<html>502</html>" is not valid JSON');
    expect(classifyError(html).kind).toBe('unknown');
    const withStatus = Object.assign(new SyntaxError('Unexpected end of JSON input'), {
      status: 500,
    });
    expect(classifyError(withStatus).kind).toBe('server_error');
  });
});

describe('invalid_request wording without a status', () => {
  it('classifies unpaired tool_use / tool_result and max_tokens messages as invalid_request', () => {
    expect(
      classifyError(
        'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01',
      ).kind,
    ).toBe('invalid_request');
    expect(
      classifyError(
        'messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_02',
      ).kind,
    ).toBe('invalid_request');
    expect(classifyError('max_tokens: 128000 > 64000, which is the maximum allowed').kind).toBe(
      'invalid_request',
    );
  });
});

describe('plain strings and serialized errors', () => {
  it('classifies strings', () => {
    expect(classifyError('fetch failed').kind).toBe('connection');
    expect(classifyError('read ECONNRESET').kind).toBe('connection');
    expect(classifyError('Connection error.').kind).toBe('connection');
  });

  it('parses JSON strings and JSON embedded in messages', () => {
    const body = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
    expect(classifyError(body)).toMatchObject({ kind: 'overloaded', code: 'overloaded_error' });
    expect(classifyError(new Error(`Error code: 529 - ${body}`))).toMatchObject({
      kind: 'overloaded',
      status: 529,
    });
  });

  it('classifies a JSON-parsed { status, error: { type, message } }', () => {
    const parsed: unknown = JSON.parse(
      '{"status":400,"error":{"type":"invalid_request_error","message":"prompt is too long: 250000 tokens > 200000 maximum"}}',
    );
    expect(classifyError(parsed)).toMatchObject({ kind: 'context_overflow', status: 400 });
  });
});

describe('fields', () => {
  it('reports retryAfterMs from plain-record headers and drops out-of-range values', () => {
    expect(classifyError({ status: 429, headers: { 'Retry-After': '12' } }).retryAfterMs).toBe(
      12_000,
    );
    expect(classifyError({ status: 429, headers: { 'retry-after': '3600' } }).retryAfterMs).toBe(
      undefined,
    );
  });

  it('reports retryAfterMs from a Headers object', () => {
    const headers = new Headers({ 'retry-after-ms': '250' });
    expect(classifyError({ status: 429, headers }).retryAfterMs).toBe(250);
  });

  it('reports a sanitized code', () => {
    expect(classifyError({ code: 'E_ODD\n\u001b[31mFORGED' }).code).toBe('E_ODD\\nFORGED');
  });

  it('reports a sanitized, capped message', () => {
    const result = classifyError(new Error(`bad\u001b[31m red\nnext ${'x'.repeat(2000)}`));
    expect(result.message).toMatch(/^bad red\\nnext x+…$/);
    expect(result.message?.length).toBeLessThanOrEqual(500);
  });

  it('prefers the provider body message over the SDK wrapper text', () => {
    const error = Object.assign(new Error('529 {"type":"error"}'), {
      status: 529,
      error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    });
    expect(classifyError(error).message).toBe('Overloaded');
  });

  it('reports the code that decided the kind', () => {
    const error = {
      status: 429,
      error: { type: 'rate_limit_error', details: { error_code: 'enforced_spend_limit_reached' } },
    };
    expect(classifyError(error)).toMatchObject({
      kind: 'billing',
      code: 'enforced_spend_limit_reached',
    });
  });

  it('detects the provider from headers and body shapes', () => {
    expect(classifyError({ status: 500, headers: { 'x-ms-region': 'East US' } }).provider).toBe(
      'azure',
    );
    expect(classifyError({ status: 500, headers: { 'openai-processing-ms': '5' } }).provider).toBe(
      'openai',
    );
    expect(
      classifyError({ status: 529, error: { type: 'error', error: { type: 'overloaded_error' } } })
        .provider,
    ).toBe('anthropic');
    expect(classifyError({ $metadata: { httpStatusCode: 500 } }).provider).toBe('bedrock');
    expect(classifyError({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } }).provider).toBe(
      'google',
    );
    expect(classifyError(new Error('x')).provider).toBe(undefined);
  });

  it('reads a Gemini RetryInfo retryDelay when there is no header', () => {
    const error = {
      error: {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '13s' }],
      },
    };
    expect(classifyError(error).retryAfterMs).toBe(13_000);
  });
});
