import { createProviderHealth } from '@keel/provider-health';
import { mockFaults } from '@keel/testing';
import { streamText } from 'ai';
import { describe, expect, it } from 'vitest';
import { createKeelModel } from './create-keel-model';
import {
  anthropicModel,
  openaiChatModel,
  recordEvents,
  startMock,
} from './mock-candidates.test-support';

describe('provider health shared by calls', () => {
  it('two concurrent streamText calls open one breaker; the next call skips the model without a request', async () => {
    const mock = await startMock();
    mock.enqueue({
      behavior: mockFaults.serverError(500),
      match: { model: 'claude-a' },
      times: Infinity,
    });
    const health = createProviderHealth({ minFailures: 2, failureRatio: 0.5 });
    const make = (onEvent?: ReturnType<typeof recordEvents>['onEvent']) =>
      createKeelModel({
        candidates: [
          anthropicModel(mock, 'claude-a', 'key-1'),
          openaiChatModel(mock, 'gpt-b', 'key-o'),
        ],
        health,
        retry: { maxRetries: 0 },
        ...(onEvent === undefined ? {} : { onEvent }),
      });
    const first = make();
    const second = make();

    const texts = await Promise.all(
      [first, second].map((model) => streamText({ model, prompt: 'hi' }).text),
    );

    expect(texts.every((text) => text.startsWith('Mock reply'))).toBe(true);
    const count = (model: string) =>
      mock.requests.filter((request) => request.model === model).length;
    expect([count('claude-a'), count('gpt-b')]).toEqual([2, 2]);
    const snapshot = await health.snapshot();
    expect(snapshot.breakers.find((breaker) => breaker.model === 'claude-a')?.state).toBe('open');

    const recorder = recordEvents();
    const third = make(recorder.onEvent);
    await streamText({ model: third, prompt: 'hi' }).text;

    expect([count('claude-a'), count('gpt-b')]).toEqual([2, 3]);
    expect(recorder.decisions()).toEqual([
      'fallback_model breaker-open claude-a#primary→gpt-b#primary',
    ]);
    expect(recorder.events.filter((event) => event.type === 'attempt-start')).toHaveLength(1);
  });

  it('without a health option, calls of one model share its in-memory health', async () => {
    const mock = await startMock();
    mock.enqueue({
      behavior: mockFaults.rateLimited({ retryAfterSeconds: 30 }),
      match: { model: 'claude-a' },
    });
    const model = createKeelModel({
      candidates: [
        anthropicModel(mock, 'claude-a', 'key-1'),
        openaiChatModel(mock, 'gpt-b', 'key-o'),
      ],
      retry: { maxWaitMs: 1_000 },
    });

    await streamText({ model, prompt: 'one' }).text;
    await streamText({ model, prompt: 'two' }).text;

    expect(mock.requests.map((request) => request.model)).toEqual(['claude-a', 'gpt-b', 'gpt-b']);
  });

  it('a stream the caller cancels hands its half-open probe back', async () => {
    const mock = await startMock();
    mock.enqueue({ type: 'ok', text: 'a long answer', chunkSize: 2 });
    let now = 1_000;
    const health = createProviderHealth({ clock: { now: () => now }, minFailures: 1 });
    const target = { providerId: 'anthropic', profileId: 'primary', model: 'claude-a' };
    await health.report({ type: 'failure', target, kind: 'server_error', probe: false });
    now += 60_000; // the breaker's open time is over: the next request is its one probe
    const model = createKeelModel({
      candidates: [anthropicModel(mock, 'claude-a', 'key-1')],
      health,
    });

    const { stream } = await model.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    });
    const reader = stream.getReader();
    while ((await reader.read()).value?.type !== 'text-delta');
    expect(await health.permit(target)).toMatchObject({
      allowed: false,
      reason: 'probe-in-flight',
    });
    await reader.cancel();

    expect(await health.permit(target)).toEqual({ allowed: true, probe: true });
  });
});
