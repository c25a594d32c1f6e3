// Writes a Messages stream's event sequence — `message_start`, per block `content_block_start` /
// `content_block_delta` / `content_block_stop`, `message_delta`, `message_stop` — in order, from
// either a live call's events or a finished outcome, so both stream modes send the same shape.
import type { AnthropicStopReason, AnthropicUsage } from './anthropic-message';

/** Where the events go: `event: <name>` + `data: <json>` (the gateway's SSE writer). */
export type SendEvent = (name: string, data: unknown) => void;

export interface AnthropicEventWriter {
  /** Whether `message_start` went out (the client has bytes). */
  started(): boolean;
  start(message: { id: string; model: string; usage: AnthropicUsage }): void;
  text(delta: string): void;
  toolUse(block: { id: string; name: string; input: Record<string, unknown> }): void;
  /** Closes the open block, then `message_delta` and `message_stop`. */
  finish(stopReason: AnthropicStopReason, usage: AnthropicUsage): void;
}

export function createAnthropicEventWriter(send: SendEvent): AnthropicEventWriter {
  let started = false;
  let index = -1;
  let open: 'text' | undefined;
  const closeBlock = () => {
    if (open === undefined) return;
    send('content_block_stop', { type: 'content_block_stop', index });
    open = undefined;
  };
  return {
    // A method, not a getter (see `started` in stream-live.ts).
    started: () => started,
    start({ id, model, usage }) {
      started = true;
      send('message_start', {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 0 },
        },
      });
    },
    text(delta) {
      if (delta === '') return;
      if (open !== 'text') {
        index += 1;
        open = 'text';
        send('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'text', text: '' },
        });
      }
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: delta },
      });
    },
    toolUse({ id, name, input }) {
      closeBlock();
      index += 1;
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id, name, input: {} },
      });
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) },
      });
      send('content_block_stop', { type: 'content_block_stop', index });
    },
    finish(stopReason, usage) {
      closeBlock();
      send('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage,
      });
      send('message_stop', { type: 'message_stop' });
    },
  };
}
