import { mockFaults } from '@keel/testing';
import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { createKeelModel } from './create-keel-model';
import { KeelModelError } from './keel-model-error';
import {
  anthropicModel,
  openaiChatModel,
  recordEvents,
  startMock,
} from './mock-candidates.test-support';

describe('abort', () => {
  it('during a retry-after wait: the call ends at once and nothing more is sent', async () => {
    const mock = await startMock();
    mock.enqueue(mockFaults.rateLimited({ retryAfterSeconds: 30 }));
    const controller = new AbortController();
    const recorder = recordEvents();
    const model = createKeelModel({
      candidates: [
        anthropicModel(mock, 'claude-a', 'key-1'),
        openaiChatModel(mock, 'gpt-b', 'key-o'),
      ],
      retry: { maxWaitMs: 60_000 },
      onEvent: (event) => {
        recorder.onEvent(event);
        if (event.type === 'decision' && event.label === 'wait') controller.abort();
      },
    });

    const error = await generateText({ model, prompt: 'hi', abortSignal: controller.signal }).catch(
      (thrown) => thrown,
    );

    expect(KeelModelError.isInstance(error)).toBe(false);
    expect(controller.signal.aborted).toBe(true);
    expect(mock.requests).toHaveLength(1);
    expect(recorder.decisions()).toEqual(['wait rate_limit claude-a#primary→-']);
    expect(error.name).toBe('AbortError');
  });

  it('before the first part: no retry, no fallback', async () => {
    const mock = await startMock();
    mock.enqueue({ behavior: { type: 'hang' }, match: { model: 'claude-a' } });
    const controller = new AbortController();
    const recorder = recordEvents();
    const model = createKeelModel({
      candidates: [
        anthropicModel(mock, 'claude-a', 'key-1'),
        openaiChatModel(mock, 'gpt-b', 'key-o'),
      ],
      onEvent: recorder.onEvent,
    });
    void mock.waitForRequests(1).then(() => controller.abort());

    const result = streamText({
      model,
      prompt: 'hi',
      abortSignal: controller.signal,
      onError: () => undefined,
    });
    const types: string[] = [];
    for await (const part of result.fullStream) types.push(part.type);

    expect(types).not.toContain('text-delta');
    expect(mock.requests.map((request) => request.model)).toEqual(['claude-a']);
    expect(recorder.decisions()).toEqual(['final caller_abort claude-a#primary→-']);
  });

  it('mid-stream: the stream stops, nothing more is sent', async () => {
    const mock = await startMock();
    mock.enqueue({ behavior: { type: 'stall', afterChunks: 2 }, match: { model: 'claude-a' } });
    const controller = new AbortController();
    const recorder = recordEvents();
    const model = createKeelModel({
      candidates: [
        anthropicModel(mock, 'claude-a', 'key-1'),
        openaiChatModel(mock, 'gpt-b', 'key-o'),
      ],
      onEvent: recorder.onEvent,
    });

    const result = streamText({
      model,
      prompt: 'hi',
      abortSignal: controller.signal,
      onError: () => undefined,
    });
    const types: string[] = [];
    for await (const part of result.fullStream) {
      types.push(part.type);
      if (part.type === 'text-delta') controller.abort();
    }

    expect(types).toContain('abort');
    expect(types).not.toContain('finish-step');
    expect(mock.requests.map((request) => request.model)).toEqual(['claude-a']);
    expect(recorder.decisions()).toEqual(['final caller_abort claude-a#primary→-']);
  });
});
