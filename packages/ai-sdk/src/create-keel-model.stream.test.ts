import { streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { createKeelModel } from './create-keel-model';
import { KeelModelError } from './keel-model-error';
import type { StreamMode } from './keel-model-options';
import {
  anthropicModel,
  openaiChatModel,
  recordEvents,
  requestLines,
  startMock,
} from './mock-candidates.test-support';

async function readAll(result: ReturnType<typeof streamText>) {
  const parts: Array<{ type: string; text?: string; error?: unknown }> = [];
  for await (const part of result.fullStream) parts.push(part);
  const text = parts.flatMap((part) => (part.type === 'text-delta' ? [part.text] : [])).join('');
  return { parts, types: parts.map((part) => part.type), text };
}

async function cutAfterTwoChunks(
  streamMode: StreamMode,
  cut: 'reset-after-chunks' | 'stream-error' | 'truncated-stream',
) {
  const mock = await startMock();
  const behavior =
    cut === 'reset-after-chunks'
      ? { type: cut, chunks: 2, text: 'partial text that is cut' }
      : cut === 'stream-error'
        ? { type: cut, afterChunks: 2, errorType: 'overloaded_error' as const }
        : { type: cut, chunks: 2, text: 'partial text that is cut' };
  mock.enqueue({ behavior, match: { model: 'claude-a' } });
  mock.enqueue({ behavior: { type: 'ok', text: 'the whole answer' }, match: { model: 'gpt-b' } });
  const recorder = recordEvents();
  const model = createKeelModel({
    candidates: [
      anthropicModel(mock, 'claude-a', 'key-1'),
      openaiChatModel(mock, 'gpt-b', 'key-o'),
    ],
    retry: { maxRetries: 0 },
    streamMode,
    onEvent: recorder.onEvent,
  });
  const result = streamText({ model, prompt: 'hi', onError: () => undefined });
  return { mock, recorder, result, read: await readAll(result) };
}

describe('a stream cut after its first parts', () => {
  for (const cut of ['reset-after-chunks', 'stream-error', 'truncated-stream'] as const) {
    it(`live (default): ${cut} ends the stream with an error part, never a finish`, async () => {
      const { mock, recorder, read, result } = await cutAfterTwoChunks('live', cut);

      expect(read.text.length).toBeGreaterThan(0);
      expect(read.text).not.toContain('the whole answer');
      const error = read.parts.find((part) => part.type === 'error')?.error;
      expect(KeelModelError.isInstance(error)).toBe(true);
      expect(await result.finishReason).toBe('error');
      expect(mock.requests).toHaveLength(1);
      expect(recorder.events.find((event) => event.type === 'attempt-error')).toMatchObject({
        afterFirstPart: true,
      });
      expect(recorder.decisions()).toEqual([
        `final ${cut === 'stream-error' ? 'overloaded' : 'connection'} claude-a#primary→-`,
      ]);
    });

    it(`buffered: ${cut} is invisible, the next model's whole answer is streamed`, async () => {
      const { mock, recorder, read, result } = await cutAfterTwoChunks('buffered', cut);

      expect(read.text).toBe('the whole answer');
      expect(read.types).not.toContain('error');
      expect(read.types).toContain('finish');
      expect(requestLines(mock)).toEqual([
        `anthropic-messages claude-a key-1 ${cut}`,
        'openai-chat gpt-b key-o ok',
      ]);
      expect(recorder.decisions()).toEqual([
        `fallback_model ${cut === 'stream-error' ? 'overloaded' : 'connection'} claude-a#primary→gpt-b#primary`,
      ]);
      expect((await result.response).modelId).toBe('gpt-b');
      expect((await result.usage).outputTokens).toBeGreaterThan(0);
    });
  }

  it('live, at the model: the error part is the last part, there is no finish part', async () => {
    const mock = await startMock();
    mock.enqueue({ type: 'reset-after-chunks', chunks: 2, text: 'partial text that is cut' });
    const model = createKeelModel({ candidates: [anthropicModel(mock, 'claude-a', 'key-1')] });

    const { stream } = await model.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    const types: string[] = [];
    for await (const part of stream) types.push(part.type);

    expect(types.at(-1)).toBe('error');
    expect(types).not.toContain('finish');
    expect(types.filter((type) => type === 'text-delta')).toHaveLength(2);
  });

  it('live: a failure before the first output part falls over invisibly', async () => {
    const mock = await startMock();
    mock.enqueue({
      behavior: { type: 'stream-error', afterChunks: 0, errorType: 'overloaded_error' },
      match: { model: 'claude-a' },
    });
    mock.enqueue({ behavior: { type: 'reset-before-headers' }, match: { model: 'gpt-b' } });
    const recorder = recordEvents();
    const model = createKeelModel({
      candidates: [
        anthropicModel(mock, 'claude-a', 'key-1'),
        openaiChatModel(mock, 'gpt-b', 'key-o'),
      ],
      retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 },
      onEvent: recorder.onEvent,
    });

    const read = await readAll(streamText({ model, prompt: 'say hi' }));

    expect(read.types).not.toContain('error');
    expect(read.text).toMatch(/^Mock reply/);
    expect(requestLines(mock)).toEqual([
      'anthropic-messages claude-a key-1 stream-error',
      'openai-chat gpt-b key-o reset-before-headers',
      'openai-chat gpt-b key-o ok',
    ]);
    expect(recorder.decisions()).toEqual([
      'fallback_model overloaded claude-a#primary→gpt-b#primary',
      'retry_same connection gpt-b#primary→gpt-b#primary',
    ]);
  });
});
