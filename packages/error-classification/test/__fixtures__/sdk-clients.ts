import Anthropic from '@anthropic-ai/sdk';
import type { MockProvider } from '@keel/testing';
import OpenAI from 'openai';

/** The three wire formats the matrix drives, each with the real official SDK. */
export type MatrixApi = 'openai-chat' | 'openai-responses' | 'anthropic-messages';
export const MATRIX_APIS: readonly MatrixApi[] = [
  'openai-chat',
  'openai-responses',
  'anthropic-messages',
];

export interface CallOptions {
  stream: boolean;
  /** SDK request timeout in ms (covers the wait for response headers). */
  timeout?: number;
  signal?: AbortSignal;
  /** Iterate the raw SSE stream (`create({ stream: true })`) instead of the SDK helper. */
  raw?: boolean;
  /** Called on the first streamed event, e.g. to abort mid-stream. */
  onFirstEvent?: () => void;
  /** The model to ask for, so a test can scope its scripted answer (`match: { model }`). */
  model?: string;
}

/**
 * Makes one real SDK call against the mock and consumes it fully. Streaming calls use the SDK
 * helpers (`chat.completions.stream`, `responses.stream`, `messages.stream`) and await the final
 * result, which is where truncated streams and in-stream error events surface as errors.
 */
export async function callMock(
  mock: MockProvider,
  api: MatrixApi,
  options: CallOptions,
): Promise<unknown> {
  const requestOptions = {
    ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  };
  const messages = [{ role: 'user' as const, content: 'hello' }];
  let first = true;
  const onEvent = () => {
    if (first) options.onFirstEvent?.();
    first = false;
  };
  if (api === 'anthropic-messages') {
    const client = new Anthropic({
      apiKey: 'sk-ant-test',
      baseURL: mock.anthropicBaseUrl,
      maxRetries: 0,
    });
    const body = { model: options.model ?? 'claude-test', max_tokens: 64, messages };
    if (!options.stream) return client.messages.create(body, requestOptions);
    if (options.raw) {
      const rawStream = await client.messages.create({ ...body, stream: true }, requestOptions);
      for await (const _event of rawStream) onEvent();
      return undefined;
    }
    const stream = client.messages.stream(body, requestOptions);
    for await (const _event of stream) onEvent();
    return stream.finalMessage();
  }
  const client = new OpenAI({ apiKey: 'sk-test', baseURL: mock.openaiBaseUrl, maxRetries: 0 });
  if (api === 'openai-chat') {
    const body = { model: options.model ?? 'gpt-test', messages };
    if (!options.stream) return client.chat.completions.create(body, requestOptions);
    if (options.raw) {
      const rawStream = await client.chat.completions.create(
        { ...body, stream: true },
        requestOptions,
      );
      for await (const _event of rawStream) onEvent();
      return undefined;
    }
    const stream = client.chat.completions.stream(body, requestOptions);
    for await (const _event of stream) onEvent();
    return stream.finalChatCompletion();
  }
  const body = { model: options.model ?? 'gpt-test', input: 'hello' };
  if (!options.stream) return client.responses.create(body, requestOptions);
  if (options.raw) {
    const rawStream = await client.responses.create({ ...body, stream: true }, requestOptions);
    for await (const _event of rawStream) onEvent();
    return undefined;
  }
  const stream = client.responses.stream(body, requestOptions);
  for await (const _event of stream) onEvent();
  return stream.finalResponse();
}

/** Runs `call` and returns what it threw; fails the test when it does not throw. */
export async function captureError(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('expected the SDK call to fail, but it succeeded');
}

/** Resolves once the mock has received `count` requests (no timing assumptions). */
export async function untilRequests(mock: MockProvider, count: number): Promise<void> {
  while (mock.requests.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
}
