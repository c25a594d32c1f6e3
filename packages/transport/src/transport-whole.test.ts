import { classifyError } from '@keel/error-classification';
import type { ModelEvent } from '@keel/spec';
import { mockFaults } from '@keel/testing';
import { describe, expect, it } from 'vitest';
import { drain, SDK_TARGETS, textOf, transportFor, useMockProvider } from '../test/mock-transport';
import { TransportTimeoutError } from './transport-error';

/*
 * `delivery: 'whole'`: a caller that takes the answer only once it is complete gets it from one
 * non-streamed call (Chat Completions and Messages; the Responses API keeps streaming), read into
 * the same events as a stream, with the whole-attempt clock alone.
 */
const mock = useMockProvider();
const whole = {
  delivery: 'whole' as const,
  messages: [{ role: 'user' as const, content: 'Say hello.' }],
};
const WHOLE_TARGETS = SDK_TARGETS.filter((target) => target.api !== 'openai-responses');

const lastTwo = (events: ModelEvent[]) => events.slice(-2).map((event) => event.type);

describe.each(WHOLE_TARGETS)('$name, delivery whole', (target) => {
  it('asks without a stream and reads the answer into the stream events', async () => {
    mock.enqueue({
      type: 'ok',
      text: 'Hello in one piece.',
      usage: { inputTokens: 11, outputTokens: 4 },
    });
    const { events, error } = await drain(transportFor(target, mock).stream(whole));
    expect(error).toBeUndefined();
    expect(mock.requests).toHaveLength(1);
    expect(mock.requests[0]?.stream).toBe(false);
    expect(mock.requests[0]?.body).not.toHaveProperty('stream_options');
    expect(events).toEqual([
      { type: 'text-delta', text: 'Hello in one piece.' },
      expect.objectContaining({ type: 'usage', inputTokens: 11, outputTokens: 4 }),
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('reads tool calls with their ids, names and inputs', async () => {
    mock.enqueue({
      type: 'ok',
      toolCalls: [
        { id: 'call_a', name: 'get_weather', input: { city: 'Oslo' } },
        { id: 'call_b', name: 'get_time', input: { zone: 'UTC' } },
      ],
    });
    const { events, error } = await drain(transportFor(target, mock).stream(whole));
    expect(error).toBeUndefined();
    expect(events.filter((event) => event.type === 'tool-call')).toEqual([
      { type: 'tool-call', id: 'call_a', name: 'get_weather', input: { city: 'Oslo' } },
      { type: 'tool-call', id: 'call_b', name: 'get_time', input: { zone: 'UTC' } },
    ]);
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' });
  });

  it('a refusal ends as a content filter', async () => {
    mock.enqueue({ type: 'ok', refusal: 'I cannot help with that.' });
    const { events, error } = await drain(transportFor(target, mock).stream(whole));
    expect(error).toBeUndefined();
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'content-filter' });
  });

  it('an HTTP error is thrown and classified as a streamed one is', async () => {
    mock.enqueue(mockFaults.overloaded());
    const { events, error } = await drain(transportFor(target, mock).stream(whole));
    expect(events).toEqual([]);
    expect(classifyError(error).kind).toBe('overloaded');
    expect(mock.requests[0]?.stream).toBe(false);
  });

  it('a body cut by a reset is an error, never a short success', async () => {
    mock.enqueue({ type: 'reset-after-chunks', chunks: 2, text: 'half of an answer, then gone' });
    const { events, error } = await drain(transportFor(target, mock).stream(whole));
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(Error);
    expect(classifyError(error).kind).toBe('connection');
  });

  it('a body that ends half-written is an error, never a short success', async () => {
    mock.enqueue({ type: 'truncated-stream', chunks: 2, text: 'half of an answer, then end' });
    const { events, error } = await drain(transportFor(target, mock).stream(whole));
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(Error);
    expect(classifyError(error).kind).toBe('connection');
  });

  it('the first-token and stall clocks do not run: a slow whole answer still arrives', async () => {
    mock.enqueue({ type: 'ok', text: 'Late but whole.', firstChunkDelayMs: 400 });
    const { events, error } = await drain(
      transportFor(target, mock).stream(whole, { firstTokenTimeoutMs: 50, stallTimeoutMs: 50 }),
    );
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('Late but whole.');
    expect(lastTwo(events)).toEqual(['usage', 'finish']);
  });

  it('the whole-attempt clock bounds a provider that never answers', async () => {
    mock.enqueue({ type: 'stall', afterChunks: 0 });
    const { events, error } = await drain(
      transportFor(target, mock).stream(whole, { timeoutMs: 150, firstTokenTimeoutMs: 60_000 }),
    );
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(TransportTimeoutError);
    expect(error).toMatchObject({ timeoutKind: 'attempt', timeoutMs: 150 });
    expect(classifyError(error).kind).toBe('timeout');
  });
});

describe('openai-responses, delivery whole', () => {
  it('keeps streaming (no whole call for the Responses API)', async () => {
    const target = SDK_TARGETS.find((candidate) => candidate.api === 'openai-responses');
    if (target === undefined) throw new Error('no openai-responses target');
    mock.enqueue({ type: 'ok', text: 'Streamed anyway.' });
    const { events, error } = await drain(transportFor(target, mock).stream(whole));
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe('Streamed anyway.');
    expect(mock.requests[0]?.stream).toBe(true);
  });
});
