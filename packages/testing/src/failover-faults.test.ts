// The faults a failover scorecard needs beyond the basic ones: a slow first token, a malformed
// chunk, a stream without its terminal event, a model that rejects prefill, a time-bound outage
// and a content-filter 400, each seen through the real SDKs or on the raw wire.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { drain, failureOf, useMockProvider } from '../test/use-mock-provider';
import { mockFaults } from './mock-faults';

const mock = useMockProvider();

const chat = { model: 'gpt-test', messages: [{ role: 'user' as const, content: 'hello' }] };

/** A raw streamed chat request: the body's server-sent events, split on blank lines. */
async function rawChatEvents(): Promise<string[]> {
  const response = await fetch(`${mock.provider.openaiBaseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    body: JSON.stringify({ ...chat, stream: true as const }),
  });
  return (await response.text()).split('\n\n').filter((event) => event !== '');
}

const parses = (event: string) => {
  const data = event.slice(event.indexOf('data: ') + 6);
  if (data === '[DONE]') return true;
  try {
    JSON.parse(data);
    return true;
  } catch {
    return false;
  }
};

describe('ok with firstChunkDelayMs', () => {
  it('sends the headers at once, then nothing until the delay has passed', async () => {
    mock.provider.enqueue({ type: 'ok', text: 'late', firstChunkDelayMs: 600 });
    const started = performance.now();
    const response = await fetch(`${mock.provider.openaiBaseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ ...chat, stream: true as const }),
    });
    const headersAt = performance.now();
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const firstChunkAt = performance.now();
    // Timers never fire early by more than a millisecond; the tolerance covers that only.
    expect(firstChunkAt - started).toBeGreaterThanOrEqual(595);
    // Delayed headers would arrive with the first chunk; these came long before it.
    expect(firstChunkAt - headersAt).toBeGreaterThan(300);
    await reader.cancel();
  });

  it('delays a non-streaming body too, and the answer is unchanged', async () => {
    mock.provider.enqueue({ type: 'ok', text: 'late answer', firstChunkDelayMs: 200 });
    const started = performance.now();
    const completion = await mock.openai.chat.completions.create(chat);
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
    expect(completion.choices[0]?.message.content).toBe('late answer');
  });
});

describe('ok with malformedAfterChunks', () => {
  it('slips one cut-off JSON event in after N text chunks; the rest follows unchanged', async () => {
    mock.provider.enqueue({ type: 'ok', text: 'abcdefghijklmnopqrstuvwx' });
    const clean = await rawChatEvents();
    mock.provider.enqueue({
      type: 'ok',
      text: 'abcdefghijklmnopqrstuvwx',
      malformedAfterChunks: 2,
    });
    const faulty = await rawChatEvents();
    const bad = faulty.filter((event) => !parses(event));
    expect(bad).toHaveLength(1);
    // role chunk, two text chunks, then the bad one
    expect(faulty.indexOf(bad[0] as string)).toBe(3);
    const normalized = (event: string) => event.replace(/"(id|created)":("[^"]*"|\d+)/g, '');
    expect(faulty.filter(parses).map(normalized)).toEqual(clean.map(normalized));
  });

  it('breaks the OpenAI and Anthropic SDK streams after the chunks before it', async () => {
    mock.provider.enqueue({
      type: 'ok',
      text: 'abcdefghijklmnopqrstuvwx',
      malformedAfterChunks: 1,
    });
    const { items, error } = await drain(
      await mock.openai.chat.completions.create({ ...chat, stream: true as const }),
    );
    expect(error).toBeInstanceOf(Error);
    expect(items.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('abcdefgh');

    mock.provider.enqueue({
      type: 'ok',
      text: 'abcdefghijklmnopqrstuvwx',
      malformedAfterChunks: 0,
    });
    const anthropic = await drain(
      await mock.anthropic.messages.create({
        model: 'claude-test',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hello' }],
        stream: true,
      }),
    );
    expect(anthropic.error).toBeInstanceOf(Error);
    expect(anthropic.items.some((event) => event.type === 'content_block_delta')).toBe(false);
  });
});

describe('ok with omitTerminalEvent', () => {
  it('chat: the finish reason and usage arrive, `[DONE]` does not; the SDK ends cleanly', async () => {
    mock.provider.enqueue({ type: 'ok', text: 'all of it', omitTerminalEvent: true });
    const events = await rawChatEvents();
    expect(events.some((event) => event.includes('[DONE]'))).toBe(false);
    expect(events.at(-1)).toContain('"finish_reason":"stop"');

    mock.provider.enqueue({ type: 'ok', text: 'all of it', omitTerminalEvent: true });
    const { items, error } = await drain(
      await mock.openai.chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'hello' }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    expect(error).toBeUndefined();
    expect(items.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('all of it');
    expect(items.at(-1)?.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('Anthropic ends after message_delta without message_stop; Responses without response.completed', async () => {
    mock.provider.enqueue({ type: 'ok', text: 'all of it', omitTerminalEvent: true });
    const anthropic = await drain(
      await mock.anthropic.messages.create({
        model: 'claude-test',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hello' }],
        stream: true,
      }),
    );
    expect(anthropic.items.map((event) => event.type).slice(-2)).toEqual([
      'content_block_stop',
      'message_delta',
    ]);

    mock.provider.enqueue({ type: 'ok', text: 'all of it', omitTerminalEvent: true });
    const responses = await drain(
      await mock.openai.responses.create({ model: 'gpt-test', input: 'x', stream: true }),
    );
    const types = responses.items.map((event) => event.type);
    expect(types).toContain('response.output_text.done');
    expect(types).not.toContain('response.completed');
  });
});

describe('match.prefill and mockFaults.prefillRejected', () => {
  it('rejects a request that ends with an assistant message and answers the others', async () => {
    mock.provider.enqueue({
      behavior: mockFaults.prefillRejected(),
      match: { model: 'claude-strict', prefill: true },
      times: 5,
    });
    const ask = (messages: Anthropic.MessageParam[]) =>
      mock.anthropic.messages.create({ model: 'claude-strict', max_tokens: 10, messages });
    const error = await failureOf(() =>
      ask([
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'Hel' },
      ]),
    );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as Error).message).toContain('does not support assistant message prefill');
    const answer = await ask([{ role: 'user', content: 'hello' }]);
    expect(answer.content[0]?.type).toBe('text');
    expect(mock.provider.pending()).toBe(1);
  });

  it('prefill: false fits only requests that end with a user or tool message', async () => {
    mock.provider.enqueue({
      behavior: { type: 'ok', text: 'not a prefill' },
      match: { prefill: false },
      times: 2,
    });
    const prefill = await mock.openai.chat.completions.create({
      model: 'gpt-test',
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'a' },
      ],
    });
    expect(prefill.choices[0]?.message.content).not.toBe('not a prefill');
    const normal = await mock.openai.chat.completions.create(chat);
    expect(normal.choices[0]?.message.content).toBe('not a prefill');
  });
});

describe('forMs', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers only within its window, then is used up whatever times is left', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    mock.provider.enqueue({ behavior: mockFaults.overloaded(), times: 1e9, forMs: 60_000 });
    const status = () =>
      mock.openai.chat.completions.create(chat).then(
        () => 200,
        (error: { status?: number }) => error.status,
      );
    expect(await status()).toBe(503);
    vi.setSystemTime(Date.now() + 59_000);
    expect(await status()).toBe(503);
    vi.setSystemTime(Date.now() + 2_000);
    expect(await status()).toBe(200);
    expect(mock.provider.pending()).toBe(0);
  });
});

describe('mockFaults.contentFiltered', () => {
  it('is a 400 content_policy_violation for OpenAI and a content-filter 400 for Anthropic', async () => {
    mock.provider.enqueue(mockFaults.contentFiltered(), mockFaults.contentFiltered());
    const openai = await failureOf(() => mock.openai.chat.completions.create(chat));
    expect(openai).toBeInstanceOf(OpenAI.BadRequestError);
    expect((openai as { code?: string }).code).toBe('content_policy_violation');
    const anthropic = await failureOf(() =>
      mock.anthropic.messages.create({
        model: 'claude-test',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'hello' }],
      }),
    );
    expect(anthropic).toBeInstanceOf(Anthropic.BadRequestError);
    expect((anthropic as Error).message).toContain('Output blocked by content filtering policy');
  });
});
