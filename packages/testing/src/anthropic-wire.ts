import type { MockReply, StreamFrame, WireFormat } from './wire-format';
import { chunkText, sseEvent } from './wire-format';

function usageBlock(reply: MockReply, outputTokens: number) {
  return {
    input_tokens: reply.usage.inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}

function stopReason(reply: MockReply): string {
  if (reply.refusal !== undefined) return 'refusal';
  return reply.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
}

/** The text the model writes: a refusal is plain text with `stop_reason: 'refusal'` here. */
function textOf(reply: MockReply): string {
  return reply.refusal === undefined ? reply.text : `${reply.text}${reply.refusal}`;
}

/** Whether the answer carries a text block (always, unless it is tool calls only). */
function hasText(reply: MockReply): boolean {
  return textOf(reply).length > 0 || reply.toolCalls.length === 0;
}

/** Anthropic Messages (`POST /v1/messages`). */
export const anthropicWire: WireFormat = {
  body(reply) {
    const content: unknown[] = [];
    if (hasText(reply)) content.push({ type: 'text', text: textOf(reply) });
    for (const call of reply.toolCalls) {
      content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input });
    }
    return {
      id: reply.id,
      type: 'message',
      role: 'assistant',
      model: reply.model,
      content,
      stop_reason: stopReason(reply),
      stop_sequence: null,
      usage: usageBlock(reply, reply.usage.outputTokens),
    };
  },

  stream(reply) {
    const frames: StreamFrame[] = [];
    const push = (name: string, data: unknown, text = false) =>
      frames.push({ data: sseEvent(name, data), text });
    push('message_start', {
      type: 'message_start',
      message: {
        id: reply.id,
        type: 'message',
        role: 'assistant',
        model: reply.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usageBlock(reply, 1),
      },
    });
    let index = 0;
    if (hasText(reply)) {
      push('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      push('ping', { type: 'ping' });
      for (const chunk of chunkText(textOf(reply), reply.chunkSize)) {
        push(
          'content_block_delta',
          { type: 'content_block_delta', index, delta: { type: 'text_delta', text: chunk } },
          true,
        );
      }
      push('content_block_stop', { type: 'content_block_stop', index });
      index += 1;
    } else {
      push('ping', { type: 'ping' });
    }
    for (const call of reply.toolCalls) {
      push('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      });
      const json = JSON.stringify(call.input);
      const half = Math.ceil(json.length / 2);
      for (const part of [json.slice(0, half), json.slice(half)]) {
        if (part.length === 0) continue;
        push('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: part },
        });
      }
      push('content_block_stop', { type: 'content_block_stop', index });
      index += 1;
    }
    push('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason(reply), stop_sequence: null },
      usage: { output_tokens: reply.usage.outputTokens },
    });
    push('message_stop', { type: 'message_stop' });
    return frames;
  },

  streamError(_reply, error) {
    return [
      sseEvent('error', { type: 'error', error: { type: error.type, message: error.message } }),
    ];
  },
};
