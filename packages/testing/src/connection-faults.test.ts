import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { drain, useMockProvider } from '../test/use-mock-provider';

const mock = useMockProvider();

const anthropicParams = {
  model: 'claude-test',
  max_tokens: 10,
  messages: [{ role: 'user' as const, content: 'hello' }],
};
const chatParams = { model: 'gpt-test', messages: [{ role: 'user' as const, content: 'hello' }] };

describe('reset-before-headers', () => {
  it('is an APIConnectionError in both SDKs, streaming or not', async () => {
    mock.provider.enqueue(
      { type: 'reset-before-headers' },
      { behavior: { type: 'reset-before-headers' }, times: 3 },
    );
    await expect(mock.anthropic.messages.create(anthropicParams)).rejects.toBeInstanceOf(
      Anthropic.APIConnectionError,
    );
    await expect(
      mock.anthropic.messages.create({ ...anthropicParams, stream: true }),
    ).rejects.toBeInstanceOf(Anthropic.APIConnectionError);
    await expect(mock.openai.chat.completions.create(chatParams)).rejects.toBeInstanceOf(
      OpenAI.APIConnectionError,
    );
    await expect(
      mock.openai.responses.create({ model: 'gpt-test', input: 'x', stream: true }),
    ).rejects.toBeInstanceOf(OpenAI.APIConnectionError);
    expect(mock.provider.pending()).toBe(0);
    expect(mock.provider.requests.map((request) => request.behavior)).toEqual(
      Array(4).fill('reset-before-headers'),
    );
  });

  it('is retried by the SDK when retries are allowed, then the next behaviour answers', async () => {
    const retrying = new Anthropic({
      apiKey: 'k',
      baseURL: mock.provider.anthropicBaseUrl,
      maxRetries: 1,
    });
    mock.provider.enqueue(
      { type: 'reset-before-headers' },
      { type: 'ok', text: 'second time lucky' },
    );
    const message = await retrying.messages.create(anthropicParams);
    expect(message.content).toEqual([{ type: 'text', text: 'second time lucky' }]);
    expect(mock.provider.requests).toHaveLength(2);
  });
});

describe('reset-after-chunks', () => {
  it('delivers N text deltas then fails the Anthropic stream', async () => {
    mock.provider.enqueue({
      type: 'reset-after-chunks',
      chunks: 2,
      text: 'abcdefghijklmnopqrstuvwxyz',
    });
    const { items, error } = await drain(
      await mock.anthropic.messages.create({ ...anthropicParams, stream: true }),
    );
    const texts = items.flatMap((event) =>
      event.type === 'content_block_delta' && event.delta.type === 'text_delta'
        ? [event.delta.text]
        : [],
    );
    expect(texts).toEqual(['abcdefgh', 'ijklmnop']);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(Anthropic.APIError);
    expect(items.some((event) => event.type === 'message_stop')).toBe(false);
  });

  it('delivers N chat chunks then fails the OpenAI stream', async () => {
    mock.provider.enqueue({ type: 'reset-after-chunks', chunks: 3 });
    const { items, error } = await drain(
      await mock.openai.chat.completions.create({ ...chatParams, stream: true }),
    );
    const texts = items.flatMap((chunk) =>
      chunk.choices[0]?.delta.content ? [chunk.choices[0].delta.content] : [],
    );
    expect(texts).toHaveLength(3);
    expect(error).toBeInstanceOf(Error);
    expect(items.some((chunk) => chunk.choices[0]?.finish_reason)).toBe(false);
  });

  it('resets a non-streaming answer after half its body (undici "terminated")', async () => {
    mock.provider.enqueue({ type: 'reset-after-chunks', chunks: 1 });
    await expect(mock.anthropic.messages.create(anthropicParams)).rejects.toMatchObject({
      name: 'TypeError',
      message: 'terminated',
    });
  });
});

describe('stream-error', () => {
  it('makes the Anthropic SDK throw an APIError carrying the in-stream error type', async () => {
    mock.provider.enqueue({ type: 'stream-error', afterChunks: 1, errorType: 'overloaded_error' });
    const { items, error } = await drain(
      await mock.anthropic.messages.create({ ...anthropicParams, stream: true }),
    );
    expect(items.filter((event) => event.type === 'content_block_delta')).toHaveLength(1);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    const apiError = error as InstanceType<typeof Anthropic.APIError>;
    expect(apiError.status).toBeUndefined();
    expect(apiError.error).toMatchObject({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
    expect(apiError.type).toBe('overloaded_error');
  });

  it('makes the OpenAI SDK throw an APIError from the chat error chunk', async () => {
    mock.provider.enqueue({
      type: 'stream-error',
      afterChunks: 2,
      errorType: 'server_error',
      message: 'boom',
    });
    const { items, error } = await drain(
      await mock.openai.chat.completions.create({ ...chatParams, stream: true }),
    );
    expect(items.filter((chunk) => chunk.choices[0]?.delta.content)).toHaveLength(2);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).type).toBe('server_error');
    expect((error as Error).message).toContain('boom');
  });

  it('sends error and response.failed events on the responses stream', async () => {
    mock.provider.enqueue({
      type: 'stream-error',
      errorType: 'rate_limit_error',
      message: 'slow down',
    });
    const { items, error } = await drain(
      await mock.openai.responses.create({ model: 'gpt-test', input: 'x', stream: true }),
    );
    expect(error).toBeUndefined();
    expect(items.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'error',
      'response.failed',
    ]);
    expect(items.at(-2)).toMatchObject({
      type: 'error',
      code: 'rate_limit_error',
      message: 'slow down',
    });
    expect(items.at(-1)).toMatchObject({
      response: { status: 'failed', error: { code: 'rate_limit_error' } },
    });
    expect(items.map((event) => event.sequence_number)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('answers a non-streaming request with the matching HTTP error', async () => {
    mock.provider.enqueue({ type: 'stream-error' });
    const error = await mock.anthropic.messages
      .create(anthropicParams)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
  });
});

describe('truncated-stream', () => {
  it('ends the Anthropic stream cleanly without message_delta or message_stop', async () => {
    mock.provider.enqueue({ type: 'truncated-stream', chunks: 2 });
    const { items, error } = await drain(
      await mock.anthropic.messages.create({ ...anthropicParams, stream: true }),
    );
    expect(error).toBeUndefined();
    expect(items.filter((event) => event.type === 'content_block_delta')).toHaveLength(2);
    expect(items.map((event) => event.type)).not.toContain('message_stop');
    expect(items.map((event) => event.type)).not.toContain('message_delta');
  });

  it('ends the chat stream without finish_reason and without [DONE]', async () => {
    mock.provider.enqueue({ type: 'truncated-stream', text: 'only this' });
    const { items, error } = await drain(
      await mock.openai.chat.completions.create({ ...chatParams, stream: true }),
    );
    expect(error).toBeUndefined();
    expect(items.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('only this');
    expect(items.some((chunk) => chunk.choices[0]?.finish_reason)).toBe(false);
  });
});

describe('truncated-stream on a non-streaming request', () => {
  it('ends cleanly after half the JSON body, so the SDK cannot parse it', async () => {
    mock.provider.enqueue({ type: 'truncated-stream' });
    await expect(mock.openai.chat.completions.create(chatParams)).rejects.toBeInstanceOf(
      SyntaxError,
    );
  });
});

describe('hang, stall and abort', () => {
  it('hang: the SDK timeout fires as APIConnectionTimeoutError', async () => {
    mock.provider.enqueue({ type: 'hang' }, { type: 'hang' });
    const impatient = new Anthropic({
      apiKey: 'k',
      baseURL: mock.provider.anthropicBaseUrl,
      maxRetries: 0,
      timeout: 150,
    });
    await expect(impatient.messages.create(anthropicParams)).rejects.toBeInstanceOf(
      Anthropic.APIConnectionTimeoutError,
    );
    const impatientOpenai = new OpenAI({
      apiKey: 'k',
      baseURL: mock.provider.openaiBaseUrl,
      maxRetries: 0,
      timeout: 150,
    });
    await expect(impatientOpenai.chat.completions.create(chatParams)).rejects.toBeInstanceOf(
      OpenAI.APIConnectionTimeoutError,
    );
  });

  it('hang: aborting the caller signal gives APIUserAbortError', async () => {
    mock.provider.enqueue({ type: 'hang' });
    const controller = new AbortController();
    const pending = mock.openai.chat.completions.create(chatParams, { signal: controller.signal });
    await mock.provider.waitForRequests(1);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(OpenAI.APIUserAbortError);
  });

  it('stall: headers and N chunks arrive, then silence until the connection is closed', async () => {
    mock.provider.enqueue({ type: 'stall', afterChunks: 1 });
    const stream = await mock.openai.chat.completions.create({ ...chatParams, stream: true });
    const seen: string[] = [];
    let finished = false;
    const error = await (async () => {
      try {
        for await (const chunk of stream) {
          const text = chunk.choices[0]?.delta.content;
          if (chunk.choices[0]?.finish_reason) finished = true;
          if (text) {
            seen.push(text);
            void mock.provider.close();
          }
        }
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(seen).toHaveLength(1);
    expect(finished).toBe(false);
    expect(error).toBeInstanceOf(Error);
  });

  it('aborting mid-stream stops the Anthropic stream without an error (SDK behaviour)', async () => {
    // A stall after the first delta: no second delta can arrive before the abort, however slow
    // the machine (with slow tokens instead, a loaded client could read two in one chunk).
    mock.provider.enqueue({ type: 'stall', afterChunks: 1 });
    const controller = new AbortController();
    const stream = await mock.anthropic.messages.create(
      { ...anthropicParams, stream: true },
      { signal: controller.signal },
    );
    const deltas: string[] = [];
    for await (const event of stream) {
      if (event.type === 'content_block_delta') {
        deltas.push(event.type);
        controller.abort();
      }
    }
    expect(deltas).toHaveLength(1);
    expect(mock.provider.requests).toHaveLength(1);
  });

  it('close() ends hanging and stalled requests with connection errors, and is idempotent', async () => {
    mock.provider.enqueue({ type: 'hang' }, { type: 'stall' });
    const hanging = mock.anthropic.messages
      .create(anthropicParams)
      .catch((error: unknown) => error);
    const stalled = await mock.anthropic.messages.create({ ...anthropicParams, stream: true });
    await mock.provider.waitForRequests(2);
    const draining = drain(stalled);
    await Promise.all([mock.provider.close(), mock.provider.close()]);
    await mock.provider.close();
    expect(await hanging).toBeInstanceOf(Anthropic.APIConnectionError);
    const { items, error } = await draining;
    expect(items).toHaveLength(0);
    expect(error).toBeInstanceOf(Error);
  });
});

describe('slow tokens', () => {
  it('chunkDelayMs holds back every streamed event after the first', async () => {
    // Ten minutes between events: only the first can arrive before close(); no timing involved.
    mock.provider.enqueue({ type: 'ok', text: 'never all of it', chunkDelayMs: 600_000 });
    const stream = await mock.anthropic.messages.create({ ...anthropicParams, stream: true });
    const types: string[] = [];
    const { error } = await drain(
      (async function* () {
        for await (const event of stream) {
          types.push(event.type);
          void mock.provider.close();
          yield event;
        }
      })(),
    );
    expect(types).toEqual(['message_start']);
    expect(error).toBeInstanceOf(Error);
  });

  it('chunkDelayMs and chunkSize shape the stream without changing its content', async () => {
    mock.provider.enqueue({ type: 'ok', text: 'slow and steady', chunkDelayMs: 5, chunkSize: 3 });
    const { items, error } = await drain(
      await mock.anthropic.messages.create({ ...anthropicParams, stream: true }),
    );
    expect(error).toBeUndefined();
    const texts = items.flatMap((event) =>
      event.type === 'content_block_delta' && event.delta.type === 'text_delta'
        ? [event.delta.text]
        : [],
    );
    expect(texts).toEqual(['slo', 'w a', 'nd ', 'ste', 'ady']);
  });
});
