import { mockFaults } from '@keel/testing';
import { generateText } from 'ai';
import { describe, expect, it } from 'vitest';
import { createKeelModel } from './create-keel-model';
import { KeelModelError } from './keel-model-error';
import {
  anthropicModel,
  openaiChatModel,
  recordEvents,
  requestLines,
  startMock,
} from './mock-candidates.test-support';

describe('rate limits with retry-after', () => {
  it('waits the retry-after on the only key, then asks the same target again', async () => {
    const mock = await startMock();
    mock.enqueue(mockFaults.rateLimited({ retryAfterMs: 40 }), {
      type: 'ok',
      text: 'after the wait',
    });
    const recorder = recordEvents();
    const model = createKeelModel({
      candidates: [
        anthropicModel(mock, 'claude-a', 'key-1'),
        openaiChatModel(mock, 'gpt-b', 'key-o'),
      ],
      retry: { maxWaitMs: 1_000 },
      onEvent: recorder.onEvent,
    });

    const result = await generateText({ model, prompt: 'hi' });

    expect(result.text).toBe('after the wait');
    expect(requestLines(mock)).toEqual([
      'anthropic-messages claude-a key-1 http-error',
      'anthropic-messages claude-a key-1 ok',
    ]);
    // The wait is what is left of the 40 ms cooldown when the decision is taken.
    const first = recorder.events.find((event) => event.type === 'decision');
    expect(first).toMatchObject({ label: 'wait', reason: 'rate_limit' });
    expect(first?.type === 'decision' && first.delayMs).toBeGreaterThan(0);
    expect(first?.type === 'decision' && first.delayMs).toBeLessThanOrEqual(40);
    expect(recorder.events.find((event) => event.type === 'attempt-error')).toMatchObject({
      kind: 'rate_limit',
      status: 429,
      retryAfterMs: 40,
    });
  });

  it('rotates to another key at once instead of waiting', async () => {
    const mock = await startMock();
    mock.enqueue({
      behavior: mockFaults.rateLimited({ retryAfterSeconds: 5 }),
      match: { apiKey: 'key-1' },
    });
    const recorder = recordEvents();
    const model = createKeelModel({
      candidates: [anthropicModel(mock, 'claude-a', 'key-1')],
      profiles: { spare: [anthropicModel(mock, 'claude-a', 'key-2')] },
      onEvent: recorder.onEvent,
    });

    await generateText({ model, prompt: 'hi' });

    expect(requestLines(mock)).toEqual([
      'anthropic-messages claude-a key-1 http-error',
      'anthropic-messages claude-a key-2 ok',
    ]);
    expect(recorder.decisions()).toEqual([
      'rotate_profile rate_limit claude-a#primary→claude-a#spare',
    ]);
  });

  it('falls over when the retry-after is longer than retry.maxWaitMs', async () => {
    const mock = await startMock();
    mock.enqueue(mockFaults.rateLimited({ retryAfterSeconds: 5 }));
    const recorder = recordEvents();
    const model = createKeelModel({
      candidates: [
        anthropicModel(mock, 'claude-a', 'key-1'),
        openaiChatModel(mock, 'gpt-b', 'key-o'),
      ],
      retry: { maxWaitMs: 1_000 },
      onEvent: recorder.onEvent,
    });

    await generateText({ model, prompt: 'hi' });

    expect(requestLines(mock)).toEqual([
      'anthropic-messages claude-a key-1 http-error',
      'openai-chat gpt-b key-o ok',
    ]);
    expect(recorder.decisions()).toEqual([
      'fallback_model rate_limit claude-a#primary→gpt-b#primary',
    ]);
  });

  it('ends with the shortest wait as retryAfterMs when nothing is left, and the AI SDK does not repeat it', async () => {
    const mock = await startMock();
    mock.enqueue({ behavior: mockFaults.rateLimited({ retryAfterSeconds: 5 }), times: Infinity });
    const model = createKeelModel({
      candidates: [anthropicModel(mock, 'claude-a', 'key-1')],
      retry: { maxWaitMs: 1_000 },
    });

    const error = await generateText({ model, prompt: 'hi', maxRetries: 2 }).catch(
      (thrown) => thrown,
    );

    expect(KeelModelError.isInstance(error)).toBe(true);
    expect(error.keelKind).toBe('rate_limit');
    expect(error.retryAfterMs).toBeGreaterThan(4_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(5_000);
    expect(error.attempts).toEqual([
      {
        target: 'anthropic/claude-a#primary',
        outcome: 'error',
        kind: 'rate_limit',
        status: 429,
        retryAfterMs: 5_000,
        decision: 'final',
      },
    ]);
    expect(mock.requests).toHaveLength(1);
  });
});
