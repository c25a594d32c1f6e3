import { describe, expect, it } from 'vitest';
import { createMockQueue } from './mock-queue';

describe('createMockQueue', () => {
  it('serves entries in order, honours times, and keeps unmatched entries', () => {
    const queue = createMockQueue();
    queue.add([
      { behavior: { type: 'hang' }, match: { api: 'openai-responses' } },
      { type: 'reset-before-headers' },
      { behavior: { type: 'stall' }, times: 2 },
    ]);
    const chat = { api: 'openai-chat' as const, model: 'm', apiKey: 'k' };
    expect(queue.take(chat)?.type).toBe('reset-before-headers');
    expect(queue.take(chat)?.type).toBe('stall');
    expect(queue.size()).toBe(2);
    expect(queue.take(chat)?.type).toBe('stall');
    expect(queue.take(chat)).toBeUndefined();
    expect(queue.take({ ...chat, api: 'openai-responses' })?.type).toBe('hang');
    expect(queue.size()).toBe(0);
  });

  it('a model filter never matches a request without a model; a global RegExp matches repeatedly', () => {
    const queue = createMockQueue();
    queue.add([{ behavior: { type: 'hang' }, match: { model: /sonnet/g }, times: 2 }]);
    const request = { api: 'anthropic-messages' as const, model: undefined, apiKey: undefined };
    expect(queue.take(request)).toBeUndefined();
    expect(queue.take({ ...request, model: 'claude-sonnet-4-5' })?.type).toBe('hang');
    expect(queue.take({ ...request, model: 'claude-sonnet-4-5' })?.type).toBe('hang');
  });

  it('rejects a non-positive times and clears', () => {
    const queue = createMockQueue();
    expect(() => queue.add([{ behavior: { type: 'hang' }, times: 0 }])).toThrow(RangeError);
    queue.add([{ type: 'hang' }]);
    queue.clear();
    expect(queue.size()).toBe(0);
  });

  it('forMs: an entry is used up once its window has passed, whatever times is left', () => {
    let clock = 1_000;
    const queue = createMockQueue(() => clock);
    queue.add([{ behavior: { type: 'hang' }, times: 100, forMs: 500 }, { type: 'stall' }]);
    const chat = { api: 'openai-chat' as const, model: 'm', apiKey: 'k' };
    expect(queue.take(chat)?.type).toBe('hang');
    clock += 500;
    expect(queue.take(chat)?.type).toBe('hang');
    clock += 1;
    expect(queue.size()).toBe(1);
    expect(queue.take(chat)?.type).toBe('stall');
    expect(() => queue.add([{ behavior: { type: 'hang' }, forMs: -1 }])).toThrow(RangeError);
  });

  it('prefill: true fits only a request that ends with the assistant, false only the others', () => {
    const queue = createMockQueue();
    queue.add([
      { behavior: { type: 'hang' }, match: { prefill: true } },
      { behavior: { type: 'stall' }, match: { prefill: false } },
    ]);
    const chat = { api: 'openai-chat' as const, model: 'm', apiKey: 'k' };
    expect(queue.take(chat)?.type).toBe('stall');
    expect(queue.take(chat)).toBeUndefined();
    expect(queue.take({ ...chat, prefill: true })?.type).toBe('hang');
  });
});
