import { mockFaults } from '@keel/testing';
import { generateText, streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { createKeelModel } from './create-keel-model';
import {
  anthropicModel,
  openaiChatModel,
  recordEvents,
  requestLines,
  startMock,
} from './mock-candidates.test-support';

describe('overload on every key', () => {
  it('rotates the key once, then falls over to the next model (generateText)', async () => {
    const mock = await startMock();
    mock.enqueue({
      behavior: mockFaults.overloaded(),
      match: { model: 'claude-a' },
      times: Infinity,
    });
    mock.enqueue({ behavior: { type: 'ok', text: 'from gpt' }, match: { model: 'gpt-b' } });
    const recorder = recordEvents();
    const model = createKeelModel({
      candidates: [
        anthropicModel(mock, 'claude-a', 'key-1'),
        openaiChatModel(mock, 'gpt-b', 'key-o'),
      ],
      profiles: {
        second: [anthropicModel(mock, 'claude-a', 'key-2')],
        third: [anthropicModel(mock, 'claude-a', 'key-3')],
      },
      onEvent: recorder.onEvent,
    });

    const result = await generateText({ model, prompt: 'hi' });

    expect(result.text).toBe('from gpt');
    expect(requestLines(mock)).toEqual([
      'anthropic-messages claude-a key-1 http-error',
      'anthropic-messages claude-a key-2 http-error',
      'openai-chat gpt-b key-o ok',
    ]);
    expect(recorder.decisions()).toEqual([
      'rotate_profile overloaded claude-a#primary→claude-a#second',
      'fallback_model overloaded claude-a#second→gpt-b#primary',
    ]);
    expect(result.response.modelId).toBe('gpt-b');
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.providerMetadata?.keel).toEqual({
      answeredBy: 'openai/gpt-b#primary',
      attempts: [
        {
          target: 'anthropic/claude-a#primary',
          outcome: 'error',
          kind: 'overloaded',
          status: 529,
          decision: 'rotate_profile',
        },
        {
          target: 'anthropic/claude-a#second',
          outcome: 'error',
          kind: 'overloaded',
          status: 529,
          decision: 'fallback_model',
        },
        { target: 'openai/gpt-b#primary', outcome: 'ok' },
      ],
    });
  });

  it('does the same before the first part of a stream, invisibly (streamText)', async () => {
    const mock = await startMock();
    mock.enqueue({
      behavior: mockFaults.overloaded(),
      match: { model: 'claude-a' },
      times: Infinity,
    });
    mock.enqueue({
      behavior: { type: 'ok', text: 'streamed from gpt' },
      match: { model: 'gpt-b' },
    });
    const model = createKeelModel({
      candidates: [
        anthropicModel(mock, 'claude-a', 'key-1'),
        openaiChatModel(mock, 'gpt-b', 'key-o'),
      ],
      profiles: { second: [anthropicModel(mock, 'claude-a', 'key-2')] },
    });

    const result = streamText({ model, prompt: 'hi' });
    const parts: string[] = [];
    for await (const part of result.fullStream) parts.push(part.type);

    expect(await result.text).toBe('streamed from gpt');
    expect(parts).not.toContain('error');
    expect(requestLines(mock)).toEqual([
      'anthropic-messages claude-a key-1 http-error',
      'anthropic-messages claude-a key-2 http-error',
      'openai-chat gpt-b key-o ok',
    ]);
    expect((await result.response).modelId).toBe('gpt-b');
    expect((await result.providerMetadata)?.keel?.answeredBy).toBe('openai/gpt-b#primary');
  });
});
