import type { MockReply, StreamFrame, WireFormat } from './wire-format';
import { chunkText, sseEvent } from './wire-format';

function messageItemId(reply: MockReply): string {
  return `${reply.id.replace(/^resp_/, 'msg_')}`;
}

function functionItemId(reply: MockReply, index: number): string {
  return `${reply.id.replace(/^resp_/, 'fc_')}_${index}`;
}

/** Whether the answer has a message item: text, a refusal, or no tool calls at all. */
function hasMessage(reply: MockReply): boolean {
  return reply.text.length > 0 || reply.refusal !== undefined || reply.toolCalls.length === 0;
}

/** Whether the message item has an `output_text` part (a refusal alone has none). */
function hasText(reply: MockReply): boolean {
  return reply.text.length > 0 || (reply.refusal === undefined && reply.toolCalls.length === 0);
}

function textPart(text: string) {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

function refusalPart(refusal: string) {
  return { type: 'refusal', refusal };
}

/** The message item's parts once complete. */
function messageParts(reply: MockReply): unknown[] {
  return [
    ...(hasText(reply) ? [textPart(reply.text)] : []),
    ...(reply.refusal === undefined ? [] : [refusalPart(reply.refusal)]),
  ];
}

function messageItem(reply: MockReply, status: string, content: unknown[]) {
  return { id: messageItemId(reply), type: 'message', status, role: 'assistant', content };
}

function functionItem(reply: MockReply, index: number, status: string, args: string) {
  const call = reply.toolCalls[index]!;
  return {
    id: functionItemId(reply, index),
    type: 'function_call',
    status,
    arguments: args,
    call_id: call.id,
    name: call.name,
  };
}

function output(reply: MockReply): unknown[] {
  const items: unknown[] = [];
  if (hasMessage(reply)) items.push(messageItem(reply, 'completed', messageParts(reply)));
  reply.toolCalls.forEach((call, index) => {
    items.push(functionItem(reply, index, 'completed', JSON.stringify(call.input)));
  });
  return items;
}

function response(reply: MockReply, status: string, items: unknown[], withUsage: boolean) {
  const body = reply.request.body as { instructions?: unknown } | null;
  return {
    id: reply.id,
    object: 'response',
    created_at: Math.floor(reply.request.receivedAt / 1000),
    status,
    error: null,
    incomplete_details: null,
    instructions: body?.instructions ?? null,
    model: reply.model,
    output: items,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: withUsage
      ? {
          input_tokens: reply.usage.inputTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: reply.usage.outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: reply.usage.inputTokens + reply.usage.outputTokens,
        }
      : null,
  };
}

/** OpenAI Responses (`POST /v1/responses`). */
export const openaiResponsesWire: WireFormat = {
  body(reply) {
    return response(reply, 'completed', output(reply), true);
  },

  stream(reply) {
    const frames: StreamFrame[] = [];
    let sequence = 0;
    const push = (type: string, data: Record<string, unknown>, text = false) => {
      frames.push({ data: sseEvent(type, { type, sequence_number: sequence, ...data }), text });
      sequence += 1;
    };
    push('response.created', { response: response(reply, 'in_progress', [], false) });
    push('response.in_progress', { response: response(reply, 'in_progress', [], false) });
    let outputIndex = 0;
    if (hasMessage(reply)) {
      const itemId = messageItemId(reply);
      push('response.output_item.added', {
        output_index: outputIndex,
        item: messageItem(reply, 'in_progress', []),
      });
      let contentIndex = 0;
      if (hasText(reply)) {
        const at = { item_id: itemId, output_index: outputIndex, content_index: contentIndex };
        push('response.content_part.added', { ...at, part: textPart('') });
        for (const chunk of chunkText(reply.text, reply.chunkSize)) {
          push('response.output_text.delta', { ...at, delta: chunk, logprobs: [] }, true);
        }
        push('response.output_text.done', { ...at, text: reply.text, logprobs: [] });
        push('response.content_part.done', { ...at, part: textPart(reply.text) });
        contentIndex += 1;
      }
      if (reply.refusal !== undefined) {
        const at = { item_id: itemId, output_index: outputIndex, content_index: contentIndex };
        push('response.content_part.added', { ...at, part: refusalPart('') });
        for (const chunk of chunkText(reply.refusal, reply.chunkSize)) {
          push('response.refusal.delta', { ...at, delta: chunk });
        }
        push('response.refusal.done', { ...at, refusal: reply.refusal });
        push('response.content_part.done', { ...at, part: refusalPart(reply.refusal) });
      }
      push('response.output_item.done', {
        output_index: outputIndex,
        item: messageItem(reply, 'completed', messageParts(reply)),
      });
      outputIndex += 1;
    }
    reply.toolCalls.forEach((call, index) => {
      const args = JSON.stringify(call.input);
      const itemId = functionItemId(reply, index);
      push('response.output_item.added', {
        output_index: outputIndex,
        item: functionItem(reply, index, 'in_progress', ''),
      });
      push('response.function_call_arguments.delta', {
        item_id: itemId,
        output_index: outputIndex,
        delta: args,
      });
      push('response.function_call_arguments.done', {
        item_id: itemId,
        output_index: outputIndex,
        name: call.name,
        arguments: args,
      });
      push('response.output_item.done', {
        output_index: outputIndex,
        item: functionItem(reply, index, 'completed', args),
      });
      outputIndex += 1;
    });
    push('response.completed', { response: response(reply, 'completed', output(reply), true) });
    return frames;
  },

  streamError(reply, error, framesSent) {
    const failed = {
      ...response(reply, 'failed', [], false),
      error: { code: error.type, message: error.message },
    };
    return [
      sseEvent('error', {
        type: 'error',
        sequence_number: framesSent,
        code: error.type,
        message: error.message,
        param: null,
      }),
      sseEvent('response.failed', {
        type: 'response.failed',
        sequence_number: framesSent + 1,
        response: failed,
      }),
    ];
  },
};
