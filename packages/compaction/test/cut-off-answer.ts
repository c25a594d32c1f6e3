import type { MockBehavior } from '@keel/testing';

const event = (name: string, data: unknown): string =>
  `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * A complete Anthropic Messages stream whose text stopped at the token limit (`stop_reason:
 * max_tokens`), for the real SDK to parse. The loopback provider's `ok` answers always end with
 * `end_turn`, so this one is sent as a raw body with status 200.
 */
export function cutOffAnswer(text: string): MockBehavior {
  const body = [
    event('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_cut_off',
        type: 'message',
        role: 'assistant',
        model: 'mock-summarizer',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 100, output_tokens: 1 },
      },
    }),
    event('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    }),
    event('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text },
    }),
    event('content_block_stop', { type: 'content_block_stop', index: 0 }),
    event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'max_tokens', stop_sequence: null },
      usage: { output_tokens: 400 },
    }),
    event('message_stop', { type: 'message_stop' }),
  ].join('');
  return {
    type: 'http-error',
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8' },
    body,
  };
}
