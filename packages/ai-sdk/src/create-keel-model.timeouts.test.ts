import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { AttemptTimeoutError } from './attempt-timeout-error';
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

async function silentThenFine(
  behavior: { type: 'hang' } | { type: 'stall'; afterChunks: number },
  streamMode: StreamMode,
) {
  const mock = await startMock();
  mock.enqueue({ behavior, match: { model: 'claude-a' } });
  mock.enqueue({ behavior: { type: 'ok', text: 'from gpt' }, match: { model: 'gpt-b' } });
  const recorder = recordEvents();
  const model = createKeelModel({
    candidates: [
      anthropicModel(mock, 'claude-a', 'key-1'),
      openaiChatModel(mock, 'gpt-b', 'key-o'),
    ],
    // One deadline per test, so that the one under test is the one that fires.
    timeouts: behavior.type === 'hang' ? { firstPartMs: 1_000 } : { stallMs: 1_000 },
    streamMode,
    onEvent: recorder.onEvent,
  });
  return { mock, recorder, model };
}

describe('timeouts: a silent route falls over instead of hanging', () => {
  it('firstPartMs: a model that never answers is left for the next one (generateText)', async () => {
    const { mock, recorder, model } = await silentThenFine({ type: 'hang' }, 'live');

    const result = await generateText({ model, prompt: 'hi' });

    expect(result.text).toBe('from gpt');
    expect(requestLines(mock)).toEqual([
      'anthropic-messages claude-a key-1 hang',
      'openai-chat gpt-b key-o ok',
    ]);
    expect(recorder.decisions()).toEqual(['fallback_model timeout claude-a#primary→gpt-b#primary']);
  });

  it('firstPartMs: a stream with no first part falls over invisibly (streamText)', async () => {
    const { mock, recorder, model } = await silentThenFine({ type: 'hang' }, 'live');

    const text = await streamText({ model, prompt: 'hi' }).text;

    expect(text).toBe('from gpt');
    expect(mock.requests.map((request) => request.model)).toEqual(['claude-a', 'gpt-b']);
    expect(recorder.decisions()).toEqual(['fallback_model timeout claude-a#primary→gpt-b#primary']);
  });

  it('stallMs, live: a stream silent after its first parts ends with an error part', async () => {
    const { mock, recorder, model } = await silentThenFine(
      { type: 'stall', afterChunks: 2 },
      'live',
    );

    const parts: Array<{ type: string; error?: unknown }> = [];
    for await (const part of streamText({ model, prompt: 'hi', onError: () => undefined })
      .fullStream)
      parts.push(part);

    const error = parts.find((part) => part.type === 'error')?.error;
    expect(KeelModelError.isInstance(error) && AttemptTimeoutError.isInstance(error.cause)).toBe(
      true,
    );
    expect(mock.requests).toHaveLength(1);
    expect(recorder.decisions()).toEqual(['final timeout claude-a#primary→-']);
  });

  it('stallMs, buffered: the stalled attempt is invisible, the next model answers', async () => {
    const { mock, recorder, model } = await silentThenFine(
      { type: 'stall', afterChunks: 2 },
      'buffered',
    );

    const text = await streamText({ model, prompt: 'hi' }).text;

    expect(text).toBe('from gpt');
    expect(mock.requests.map((request) => request.model)).toEqual(['claude-a', 'gpt-b']);
    expect(recorder.decisions()).toEqual(['fallback_model timeout claude-a#primary→gpt-b#primary']);
  });

  it('stallMs counts only while the caller waits for a part: a slow reader is no stall', async () => {
    const mock = await startMock();
    // 40 chunks 50 ms apart: the body still flows while the reader dawdles over the first part.
    const whole = 'abcd'.repeat(40);
    mock.enqueue({ type: 'ok', text: whole, chunkSize: 4, chunkDelayMs: 50 });
    const model = createKeelModel({
      candidates: [anthropicModel(mock, 'claude-a', 'key-1')],
      timeouts: { stallMs: 1_000 },
    });

    const { stream } = await model.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    let text = '';
    const types: string[] = [];
    for await (const part of stream) {
      types.push(part.type);
      if (part.type !== 'text-delta') continue;
      if (text === '') await new Promise((resolve) => setTimeout(resolve, 1_500));
      text += part.delta;
    }

    expect(types.at(-1)).toBe('finish');
    expect(text).toBe(whole);
    expect(mock.requests).toHaveLength(1);
  });
});
