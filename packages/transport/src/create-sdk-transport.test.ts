import type { ModelEvent } from '@keel/spec';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { drain } from '../test/drain';
import { createSdkTransport } from './create-sdk-transport';
import { isAnthropicOutputEvent } from './from-anthropic-messages-stream';
import { isOpenAIChatOutputChunk } from './from-openai-chat-stream';
import { isOpenAIResponsesOutputEvent } from './from-openai-responses-stream';

/*
 * The first-token clock on a scripted chunk source, under fake timers: what stops it is the
 * first chunk of model output, not the first event (a tool call is one event, produced only once
 * its streamed arguments are complete).
 */

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

type Chunk = 'preamble' | 'argument' | 'end';

/** One chunk every 100 ms; aborting the request ends the source as an SDK would. */
async function* paced(chunks: Chunk[], signal: AbortSignal): AsyncGenerator<Chunk> {
  for (const chunk of chunks) {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, 100);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    });
    yield chunk;
  }
}

/** Decodes like a tool call: one event once every argument chunk has arrived. */
async function* oneToolCallAtTheEnd(chunks: AsyncIterable<Chunk>): AsyncGenerator<ModelEvent> {
  for await (const chunk of chunks) {
    if (chunk === 'end') {
      yield { type: 'tool-call', id: 'call_1', name: 'write', input: {} };
      yield { type: 'finish', reason: 'tool-calls' };
    }
  }
}

function scriptedTransport(chunks: Chunk[]) {
  return createSdkTransport<Chunk>({
    api: 'openai-chat',
    provider: 'scripted',
    model: 'm',
    url: 'http://127.0.0.1',
    secret: () => undefined,
    hooks: undefined,
    defaults: { firstTokenTimeoutMs: 250 },
    open: async (_request, context) => ({ status: 200, chunks: paced(chunks, context.signal) }),
    decode: oneToolCallAtTheEnd,
    isOutput: (chunk) => chunk !== 'preamble',
  });
}

const request = { messages: [{ role: 'user' as const, content: 'write the file' }] };

describe('the first-token clock', () => {
  it('stops at the first output chunk, though the first event comes much later', async () => {
    const chunks: Chunk[] = ['preamble', 'argument', ...Array(10).fill('argument'), 'end'];
    const run = drain(scriptedTransport(chunks).stream(request));
    await vi.advanceTimersByTimeAsync(2_000);
    const { events, error } = await run;
    expect(error).toBeUndefined();
    expect(events.map((event) => event.type)).toEqual(['tool-call', 'finish']);
  });

  it('still fires when only preamble arrives in time', async () => {
    const chunks: Chunk[] = ['preamble', 'preamble', 'preamble', 'argument', 'end'];
    const run = drain(scriptedTransport(chunks).stream(request));
    await vi.advanceTimersByTimeAsync(2_000);
    const { events, error } = await run;
    expect(events).toEqual([]);
    expect(error).toMatchObject({ keelKind: 'timeout', timeoutKind: 'first-token' });
  });
});

describe('what counts as model output, per wire format', () => {
  it('anthropic-messages: content blocks and the end, not message_start or ping', () => {
    const output = [
      { type: 'message_start', message: { usage: {} } },
      { type: 'ping' },
      { type: 'content_block_start', index: 0, content_block: { type: 'tool_use' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta' } },
      { type: 'message_stop' },
    ].map(isAnthropicOutputEvent);
    expect(output).toEqual([false, false, true, true, true]);
  });

  it('openai-chat: text, tool-call deltas and a finish reason, not a role-only or usage chunk', () => {
    const output = [
      { choices: [{ delta: { content: '' }, finish_reason: null }] },
      { choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } },
      { choices: [{ delta: { tool_calls: [{ index: 0, id: 'c' }] } }] },
      { choices: [{ delta: { content: 'Hi' } }] },
      { choices: [{ delta: {}, finish_reason: 'stop' }] },
    ].map(isOpenAIChatOutputChunk);
    expect(output).toEqual([false, false, true, true, true]);
  });

  it('openai-responses: output items, their deltas and the end, not response.created', () => {
    const output = [
      { type: 'response.created' },
      { type: 'response.in_progress' },
      { type: 'response.output_item.added', output_index: 0, item: { type: 'function_call' } },
      { type: 'response.function_call_arguments.delta', output_index: 0, delta: '{' },
      { type: 'response.completed', response: {} },
    ].map(isOpenAIResponsesOutputEvent);
    expect(output).toEqual([false, false, true, true, true]);
  });
});
