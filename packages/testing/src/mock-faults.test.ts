import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { drain, failureOf, useMockProvider } from '../test/use-mock-provider';
import { mockFaults } from './mock-faults';
import type { MockBehavior } from './mock-provider-types';

const mock = useMockProvider();

function anthropicError(behavior: MockBehavior, stream = false): Promise<unknown> {
  mock.provider.enqueue(behavior);
  const params = {
    model: 'claude-test',
    max_tokens: 10,
    messages: [{ role: 'user' as const, content: 'x' }],
  };
  return failureOf(async () => {
    if (!stream) return mock.anthropic.messages.create(params);
    return drainOrThrow(await mock.anthropic.messages.create({ ...params, stream: true }));
  });
}

function chatError(behavior: MockBehavior, stream = false): Promise<unknown> {
  mock.provider.enqueue(behavior);
  const params = { model: 'gpt-test', messages: [{ role: 'user' as const, content: 'x' }] };
  return failureOf(async () => {
    if (!stream) return mock.openai.chat.completions.create(params);
    return drainOrThrow(await mock.openai.chat.completions.create({ ...params, stream: true }));
  });
}

function responsesError(behavior: MockBehavior): Promise<unknown> {
  mock.provider.enqueue(behavior);
  return failureOf(() => mock.openai.responses.create({ model: 'gpt-test', input: 'x' }));
}

/** Consumes a stream, rethrowing what it threw. */
async function drainOrThrow(stream: AsyncIterable<unknown>): Promise<void> {
  const { error } = await drain(stream);
  if (error !== undefined) throw error;
}

describe('mockFaults against @anthropic-ai/sdk', () => {
  it.each([false, true])('overloaded is a 529 overloaded_error (stream: %s)', async (stream) => {
    const error = await anthropicError(mockFaults.overloaded(), stream);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    const apiError = error as InstanceType<typeof Anthropic.APIError>;
    expect(apiError.status).toBe(529);
    expect(apiError.error).toMatchObject({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
    expect(apiError.requestID).toMatch(/^req_mock_/);
  });

  it('rateLimited carries retry-after and retry-after-ms headers', async () => {
    const error = await anthropicError(
      mockFaults.rateLimited({ retryAfterSeconds: 7, retryAfterMs: 6500 }),
    );
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const apiError = error as InstanceType<typeof Anthropic.RateLimitError>;
    expect(apiError.headers.get('retry-after')).toBe('7');
    expect(apiError.headers.get('retry-after-ms')).toBe('6500');
    expect(apiError.error).toMatchObject({ error: { type: 'rate_limit_error' } });
  });

  it('unauthorized, billing, promptTooLong, modelNotFound and serverError use Anthropic wording', async () => {
    const unauthorized = await anthropicError(mockFaults.unauthorized());
    expect(unauthorized).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((unauthorized as Error).message).toContain('invalid x-api-key');

    const billing = await anthropicError(mockFaults.billing());
    expect(billing).toBeInstanceOf(Anthropic.BadRequestError);
    expect((billing as Error).message).toContain(
      'Your credit balance is too low to access the Anthropic API',
    );

    const tooLong = await anthropicError(mockFaults.promptTooLong());
    expect(tooLong).toBeInstanceOf(Anthropic.BadRequestError);
    expect((tooLong as Error).message).toContain(
      'prompt is too long: 210000 tokens > 200000 maximum',
    );

    const missing = await anthropicError(mockFaults.modelNotFound({ model: 'claude-nope' }));
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
    expect((missing as Error).message).toContain('model: claude-nope');

    const server = await anthropicError(mockFaults.serverError(503));
    expect(server).toBeInstanceOf(Anthropic.InternalServerError);
    expect((server as InstanceType<typeof Anthropic.APIError>).status).toBe(503);
    expect((server as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      error: { type: 'api_error' },
    });
  });

  it('a custom body and headers replace the generated ones', async () => {
    const error = await anthropicError({
      type: 'http-error',
      status: 502,
      body: '<html>bad gateway</html>',
      headers: { 'x-custom': 'yes' },
    });
    const apiError = error as InstanceType<typeof Anthropic.APIError>;
    expect(apiError.status).toBe(502);
    expect(apiError.headers?.get('x-custom')).toBe('yes');
    expect(apiError.message).toContain('bad gateway');
  });
});

describe('mockFaults against openai', () => {
  it.each([false, true])(
    'billing is a 429 insufficient_quota on chat (stream: %s)',
    async (stream) => {
      const error = await chatError(mockFaults.billing(), stream);
      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      const apiError = error as InstanceType<typeof OpenAI.APIError>;
      expect(apiError.status).toBe(429);
      expect(apiError.code).toBe('insufficient_quota');
      expect(apiError.type).toBe('insufficient_quota');
      expect(apiError.message).toContain('You exceeded your current quota');
      expect(apiError.requestID).toMatch(/^req_mock_/);
    },
  );

  it('promptTooLong is context_length_exceeded; modelNotFound is model_not_found', async () => {
    const tooLong = await chatError(mockFaults.promptTooLong({ tokens: 150000 }));
    expect(tooLong).toBeInstanceOf(OpenAI.BadRequestError);
    expect((tooLong as InstanceType<typeof OpenAI.APIError>).code).toBe('context_length_exceeded');
    expect((tooLong as Error).message).toContain('maximum context length is 128000 tokens');

    const missing = await responsesError(mockFaults.modelNotFound({ model: 'gpt-nope' }));
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect((missing as InstanceType<typeof OpenAI.APIError>).code).toBe('model_not_found');
    expect((missing as Error).message).toContain('The model `gpt-nope` does not exist');
  });

  it('unauthorized, overloaded, rateLimited and serverError surface as status errors', async () => {
    const unauthorized = await chatError(mockFaults.unauthorized());
    expect(unauthorized).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((unauthorized as InstanceType<typeof OpenAI.APIError>).code).toBe('invalid_api_key');

    const overloaded = await responsesError(mockFaults.overloaded());
    expect(overloaded).toBeInstanceOf(OpenAI.InternalServerError);
    expect((overloaded as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    expect((overloaded as Error).message).toContain('currently overloaded');

    const limited = await chatError(mockFaults.rateLimited({ retryAfterSeconds: 3 }));
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect((limited as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('3');
    expect((limited as InstanceType<typeof OpenAI.APIError>).code).toBe('rate_limit_exceeded');

    const server = await chatError(mockFaults.serverError(502));
    expect(server).toBeInstanceOf(OpenAI.InternalServerError);
    expect((server as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((server as InstanceType<typeof OpenAI.APIError>).type).toBe('server_error');
  });
});

describe('a bare http-error (status only)', () => {
  it.each([
    [400, 'invalid_request_error', 'invalid_request_error', 'Invalid request'],
    [402, 'billing_error', 'invalid_request_error', 'Payment required'],
    [429, 'rate_limit_error', 'requests', 'Rate limited'],
    [500, 'api_error', 'server_error', 'Internal server error'],
    [502, 'api_error', 'server_error', 'Bad gateway'],
    [529, 'overloaded_error', 'server_error', 'Overloaded'],
  ])(
    '%i gets each provider default type and message',
    async (status, anthropicType, openaiType, message) => {
      const anthropicFailure = await anthropicError({ type: 'http-error', status });
      expect(anthropicFailure).toMatchObject({
        status,
        error: { type: 'error', error: { type: anthropicType, message } },
      });
      const openaiFailure = await chatError({ type: 'http-error', status });
      expect(openaiFailure).toMatchObject({ status, type: openaiType });
      expect((openaiFailure as Error).message).toContain(message);
    },
  );
});
