import { describe, expect, it } from 'vitest';
import { collect, fromArray } from '../test/collect-events';
import {
  type AnthropicMessagesEvent,
  fromAnthropicMessagesStream,
} from './from-anthropic-messages-stream';
import { IncompleteStreamError, MalformedResponseError } from './transport-error';

const start: AnthropicMessagesEvent = {
  type: 'message_start',
  message: {
    usage: {
      input_tokens: 10,
      cache_read_input_tokens: 5,
      cache_creation_input_tokens: 1,
      output_tokens: 1,
    },
  },
};

describe('fromAnthropicMessagesStream', () => {
  it('streams text and tool calls, then usage and finish at message_stop', async () => {
    const events = await collect(
      fromAnthropicMessagesStream(
        fromArray<AnthropicMessagesEvent>([
          start,
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          { type: 'ping' },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me ' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'look.' } },
          { type: 'content_block_stop', index: 0 },
          {
            type: 'content_block_start',
            index: 1,
            content_block: { type: 'tool_use', id: 'toolu_1', name: 'read', input: {} },
          },
          {
            type: 'content_block_delta',
            index: 1,
            delta: { type: 'input_json_delta', partial_json: '{"path":' },
          },
          {
            type: 'content_block_delta',
            index: 1,
            delta: { type: 'input_json_delta', partial_json: '"/a"}' },
          },
          { type: 'content_block_stop', index: 1 },
          {
            type: 'content_block_start',
            index: 2,
            content_block: { type: 'tool_use', id: 'toolu_2', name: 'noop', input: {} },
          },
          { type: 'content_block_stop', index: 2 },
          {
            type: 'message_delta',
            delta: { stop_reason: 'tool_use' },
            usage: { output_tokens: 42 },
          },
          { type: 'message_stop' },
        ]),
      ),
    );
    expect(events).toEqual([
      { type: 'text-delta', text: 'Let me ' },
      { type: 'text-delta', text: 'look.' },
      { type: 'tool-call', id: 'toolu_1', name: 'read', input: { path: '/a' } },
      { type: 'tool-call', id: 'toolu_2', name: 'noop', input: {} },
      { type: 'usage', inputTokens: 16, outputTokens: 42, cacheReadTokens: 5, cacheWriteTokens: 1 },
      { type: 'finish', reason: 'tool-calls' },
    ]);
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['refusal', 'content-filter'],
    ['pause_turn', 'other'],
  ])('maps stop_reason %s to %s', async (wire, mapped) => {
    const events = await collect(
      fromAnthropicMessagesStream(
        fromArray<AnthropicMessagesEvent>([
          start,
          { type: 'message_delta', delta: { stop_reason: wire } },
          { type: 'message_stop' },
        ]),
      ),
    );
    expect(events.at(-1)).toEqual({ type: 'finish', reason: mapped });
  });

  it('throws IncompleteStreamError when message_stop never comes', async () => {
    const run = collect(
      fromAnthropicMessagesStream(
        fromArray<AnthropicMessagesEvent>([
          start,
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'cut' } },
          { type: 'message_delta', delta: { stop_reason: 'end_turn' } },
        ]),
      ),
    );
    await expect(run).rejects.toBeInstanceOf(IncompleteStreamError);
  });

  it('throws MalformedResponseError for a tool_use block without an id', async () => {
    const run = collect(
      fromAnthropicMessagesStream(
        fromArray<AnthropicMessagesEvent>([
          start,
          {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'tool_use', name: 'Read', input: {} },
          },
          {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'input_json_delta', partial_json: '{}' },
          },
          { type: 'content_block_stop', index: 0 },
          { type: 'message_delta', delta: { stop_reason: 'tool_use' } },
          { type: 'message_stop' },
        ]),
      ),
    );
    await expect(run).rejects.toBeInstanceOf(MalformedResponseError);
    await expect(run).rejects.toThrow(/id/);
  });

  it('throws MalformedResponseError for tool input of a block that was never started', async () => {
    const run = collect(
      fromAnthropicMessagesStream(
        fromArray<AnthropicMessagesEvent>([
          start,
          {
            type: 'content_block_delta',
            index: 4,
            delta: { type: 'input_json_delta', partial_json: '{"path":"a"}' },
          },
          { type: 'message_delta', delta: { stop_reason: 'tool_use' } },
          { type: 'message_stop' },
        ]),
      ),
    );
    await expect(run).rejects.toBeInstanceOf(MalformedResponseError);
  });

  // The wire's own shapes: message_start carries every count, message_delta the output (older API
  // versions) or every count again, cumulatively (newer ones). Each field is taken where it is sent.
  const wireStart = {
    type: 'message_start',
    message: {
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      type: 'message',
      role: 'assistant',
      content: [],
      model: 'claude-sonnet-4-5',
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 21,
        cache_creation_input_tokens: 188,
        cache_read_input_tokens: 2048,
        output_tokens: 1,
        service_tier: 'standard',
      },
    },
  };
  const text = [
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
    { type: 'content_block_stop', index: 0 },
  ];

  it('reports cache reads and writes apart and inside inputTokens, from message_start', async () => {
    const events = await collect(
      fromAnthropicMessagesStream(
        fromArray<AnthropicMessagesEvent>([
          wireStart,
          ...text,
          {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { output_tokens: 12 },
          } as AnthropicMessagesEvent,
          { type: 'message_stop' },
        ]),
      ),
    );
    expect(events.at(-2)).toEqual({
      type: 'usage',
      inputTokens: 21 + 188 + 2048,
      outputTokens: 12,
      cacheReadTokens: 2048,
      cacheWriteTokens: 188,
    });
  });

  it("takes message_delta's cumulative counts over message_start's", async () => {
    const events = await collect(
      fromAnthropicMessagesStream(
        fromArray<AnthropicMessagesEvent>([
          wireStart,
          ...text,
          {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: {
              input_tokens: 30,
              cache_creation_input_tokens: 0,
              cache_read_input_tokens: 2236,
              output_tokens: 40,
              server_tool_use: null,
            },
          } as AnthropicMessagesEvent,
          { type: 'message_stop' },
        ]),
      ),
    );
    expect(events.at(-2)).toEqual({
      type: 'usage',
      inputTokens: 30 + 2236,
      outputTokens: 40,
      cacheReadTokens: 2236,
      cacheWriteTokens: 0,
    });
  });

  it('leaves out the cache counts a server did not send', async () => {
    const events = await collect(
      fromAnthropicMessagesStream(
        fromArray<AnthropicMessagesEvent>([
          { type: 'message_start', message: { usage: { input_tokens: 9, output_tokens: 1 } } },
          ...text,
          {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn' },
            usage: { output_tokens: 3, cache_read_input_tokens: null },
          },
          { type: 'message_stop' },
        ]),
      ),
    );
    expect(events.at(-2)).toEqual({ type: 'usage', inputTokens: 9, outputTokens: 3 });
  });
});
