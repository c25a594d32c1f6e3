import type { LanguageModelV4 } from '@ai-sdk/provider';
import { createProviderHealth } from '@keel/provider-health';
import { mockFaults } from '@keel/testing';
import { generateText } from 'ai';
import { describe, expect, it } from 'vitest';
import { createKeelModel } from './create-keel-model';
import { KeelModelConfigError, KeelModelError } from './keel-model-error';
import {
  anthropicModel,
  openaiChatModel,
  recordEvents,
  requestLines,
  startMock,
} from './mock-candidates.test-support';

describe('options', () => {
  it('refuses options that cannot work', async () => {
    const mock = await startMock();
    const claude = anthropicModel(mock, 'claude-a', 'key-1');
    const refused = (make: () => unknown) => {
      try {
        make();
        return 'accepted';
      } catch (error) {
        return KeelModelConfigError.isInstance(error) ? error.message : `other: ${String(error)}`;
      }
    };
    expect(refused(() => createKeelModel({ candidates: [] }))).toMatch(/at least one candidate/);
    expect(refused(() => createKeelModel({ candidates: [claude, claude] }))).toMatch(
      /listed twice/,
    );
    expect(
      refused(() =>
        createKeelModel({
          candidates: [claude],
          profiles: { spare: [openaiChatModel(mock, 'gpt-b', 'k')] },
        }),
      ),
    ).toMatch(/openai\/gpt-b, which is not a candidate/);
    expect(
      refused(() => createKeelModel({ candidates: [claude], profiles: { primary: [claude] } })),
    ).toMatch(/primary/);
    const v3 = { ...claude, specificationVersion: 'v3' } as unknown as LanguageModelV4;
    expect(refused(() => createKeelModel({ candidates: [v3] }))).toMatch(/specification v3/);
    expect(
      refused(() => createKeelModel({ candidates: [claude], retry: { maxWaitMs: -1 } })),
    ).toMatch(/retry.maxWaitMs/);
    expect(
      refused(() => createKeelModel({ candidates: [claude], streamMode: 'eager' as 'live' })),
    ).toMatch(/streamMode/);
    expect(
      refused(() => createKeelModel({ candidates: [claude], timeouts: { stallMs: -5 } })),
    ).toMatch(/timeouts.stallMs/);
  });

  it('retry.maxRetries, baseDelayMs, maxDelayMs and random set the retries of a fast failure', async () => {
    const mock = await startMock();
    mock.enqueue({
      behavior: mockFaults.serverError(500),
      match: { model: 'claude-a' },
      times: Infinity,
    });
    const recorder = recordEvents();
    const model = createKeelModel({
      candidates: [
        anthropicModel(mock, 'claude-a', 'key-1'),
        openaiChatModel(mock, 'gpt-b', 'key-o'),
      ],
      retry: { maxRetries: 2, baseDelayMs: 20, maxDelayMs: 30 },
      random: () => 1,
      onEvent: recorder.onEvent,
    });

    await generateText({ model, prompt: 'hi' });

    expect(requestLines(mock)).toEqual([
      'anthropic-messages claude-a key-1 http-error',
      'anthropic-messages claude-a key-1 http-error',
      'anthropic-messages claude-a key-1 http-error',
      'openai-chat gpt-b key-o ok',
    ]);
    const delays = recorder.events.flatMap((event) =>
      event.type === 'decision' && event.delayMs !== undefined ? [event.delayMs] : [],
    );
    expect(delays).toEqual([20, 30]);
    expect(recorder.decisions().at(-1)).toBe(
      'fallback_model server_error claude-a#primary→gpt-b#primary',
    );
  });

  it('retry.rateLimitCooldownMs cools a key whose 429 named no wait; retry.maxWaits bounds the waits', async () => {
    const mock = await startMock();
    mock.enqueue({ behavior: mockFaults.rateLimited(), times: 2 });
    const recorder = recordEvents();
    const model = createKeelModel({
      candidates: [anthropicModel(mock, 'claude-a', 'key-1')],
      retry: { rateLimitCooldownMs: 25, maxWaits: 1 },
      onEvent: recorder.onEvent,
    });

    const error = await generateText({ model, prompt: 'hi' }).catch((thrown) => thrown);

    expect(KeelModelError.isInstance(error)).toBe(true);
    expect(mock.requests).toHaveLength(2);
    // Only the 25 ms cooldown is short enough to wait for (the default 30 s is past retry.maxWaitMs).
    const decisions = recorder.events.flatMap((event) =>
      event.type === 'decision' ? [event] : [],
    );
    expect(decisions.map((event) => event.label)).toEqual(['wait', 'final']);
    expect(decisions[0]?.delayMs).toBeGreaterThan(0);
    expect(decisions[0]?.delayMs).toBeLessThanOrEqual(25);
  });

  it('a final kind ends the call at once: no retry, no fallback', async () => {
    const mock = await startMock();
    mock.enqueue(mockFaults.contentFiltered());
    const recorder = recordEvents();
    const model = createKeelModel({
      candidates: [
        anthropicModel(mock, 'claude-a', 'key-1'),
        openaiChatModel(mock, 'gpt-b', 'key-o'),
      ],
      onEvent: recorder.onEvent,
    });

    const error = await generateText({ model, prompt: 'hi' }).catch((thrown) => thrown);

    expect(KeelModelError.isInstance(error) && error.keelKind).toBe('content_policy');
    expect(mock.requests).toHaveLength(1);
    expect(recorder.decisions()).toEqual(['final content_policy claude-a#primary→-']);
  });

  it('health receives the reports; a throwing onEvent changes nothing', async () => {
    const mock = await startMock();
    mock.enqueue(mockFaults.unauthorized());
    const health = createProviderHealth();
    const model = createKeelModel({
      candidates: [
        anthropicModel(mock, 'claude-a', 'key-1'),
        openaiChatModel(mock, 'gpt-b', 'key-o'),
      ],
      health,
      onEvent: () => {
        throw new Error('observer bug');
      },
    });

    const result = await generateText({ model, prompt: 'hi' });

    expect(result.response.modelId).toBe('gpt-b');
    const { cooldowns } = await health.snapshot();
    expect(
      cooldowns.map((cooldown) => `${cooldown.providerId}#${cooldown.profileId} ${cooldown.kind}`),
    ).toEqual(['anthropic#primary auth']);
  });
});
