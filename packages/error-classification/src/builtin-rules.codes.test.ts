import { createMockProvider, type MockProvider } from '@keel/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callMock, captureError } from '../test/__fixtures__/sdk-clients';
import { classifyError } from './classify-error';

/*
 * A code decides its kind on its own: without an HTTP status that would say the same, without
 * wording that would, and ahead of an earlier, vaguer code on the same error (the classification
 * reports the code that decided). In-stream errors are the common case: the real Anthropic SDK
 * raises an `event: error` mid-stream as an APIError with no status.
 */

let mock: MockProvider;
beforeAll(async () => {
  mock = await createMockProvider();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => {
  mock.reset();
});

async function inStreamError(errorType: string, message: string): Promise<unknown> {
  mock.enqueue({ type: 'stream-error', afterChunks: 1, errorType, message });
  const error = await captureError(() => callMock(mock, 'anthropic-messages', { stream: true }));
  expect(error).toMatchObject({ status: undefined });
  return error;
}

describe('a code decides without a status or wording', () => {
  it('request_too_large mid-stream → context_overflow', async () => {
    const error = await inStreamError('request_too_large', 'Request exceeds the maximum size');
    expect(classifyError(error)).toMatchObject({
      kind: 'context_overflow',
      code: 'request_too_large',
    });
  });

  it('not_found_error mid-stream → model_not_found', async () => {
    const error = await inStreamError('not_found_error', 'model: claude-typo');
    expect(classifyError(error)).toMatchObject({
      kind: 'model_not_found',
      code: 'not_found_error',
    });
  });

  it('invalid_request_error mid-stream → invalid_request', async () => {
    const error = await inStreamError(
      'invalid_request_error',
      'messages.1.content: text content blocks must be non-empty',
    );
    expect(classifyError(error)).toMatchObject({
      kind: 'invalid_request',
      code: 'invalid_request_error',
    });
  });

  it('an undici abort as a pino log line serializes it → provider_abort', () => {
    // pino's error serializer: `type` is the class name, `code` is copied; undici's own
    // `name` ('AbortError') is not kept, so no abort wording is left in the text.
    const logged = {
      type: 'RequestAbortedError',
      message: 'Request aborted',
      code: 'UND_ERR_ABORTED',
    };
    expect(classifyError(logged)).toMatchObject({
      kind: 'provider_abort',
      code: 'UND_ERR_ABORTED',
    });
  });
});

describe('the deciding code beats an earlier one', () => {
  it('an OpenRouter mid-stream server_error that carries Anthropic overloaded_error → overloaded, code overloaded_error', () => {
    const chunk = {
      id: 'gen-1',
      object: 'chat.completion.chunk',
      error: {
        code: 'server_error',
        message: 'Provider returned error',
        metadata: {
          provider_name: 'Anthropic',
          raw: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        },
      },
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
    };
    expect(classifyError(chunk)).toMatchObject({ kind: 'overloaded', code: 'overloaded_error' });
  });
});
