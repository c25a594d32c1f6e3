import type { MockReply, StreamFrame, WireFormat } from './wire-format';
import { chunkText, sseData } from './wire-format';

function finishReason(reply: MockReply): string {
  return reply.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

function usageOf(reply: MockReply) {
  return {
    prompt_tokens: reply.usage.inputTokens,
    completion_tokens: reply.usage.outputTokens,
    total_tokens: reply.usage.inputTokens + reply.usage.outputTokens,
  };
}

function includeUsage(reply: MockReply): boolean {
  const body = reply.request.body as { stream_options?: { include_usage?: unknown } } | null;
  return body?.stream_options?.include_usage === true;
}

function created(reply: MockReply): number {
  return Math.floor(reply.request.receivedAt / 1000);
}

/** OpenAI Chat Completions (`POST /v1/chat/completions`). */
export const openaiChatWire: WireFormat = {
  body(reply) {
    const hasTools = reply.toolCalls.length > 0;
    return {
      id: reply.id,
      object: 'chat.completion',
      created: created(reply),
      model: reply.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content:
              reply.refusal === undefined && (reply.text.length > 0 || !hasTools)
                ? reply.text
                : null,
            refusal: reply.refusal ?? null,
            ...(hasTools
              ? {
                  tool_calls: reply.toolCalls.map((call) => ({
                    id: call.id,
                    type: 'function',
                    function: { name: call.name, arguments: JSON.stringify(call.input) },
                  })),
                }
              : {}),
          },
          logprobs: null,
          finish_reason: finishReason(reply),
        },
      ],
      usage: usageOf(reply),
      system_fingerprint: null,
    };
  },

  stream(reply) {
    const usage = includeUsage(reply);
    const chunk = (delta: unknown, finish: string | null) =>
      sseData({
        id: reply.id,
        object: 'chat.completion.chunk',
        created: created(reply),
        model: reply.model,
        system_fingerprint: null,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        ...(usage ? { usage: null } : {}),
      });
    const frames: StreamFrame[] = [
      { data: chunk({ role: 'assistant', content: '', refusal: null }, null), text: false },
    ];
    for (const text of chunkText(reply.text, reply.chunkSize)) {
      frames.push({ data: chunk({ content: text }, null), text: true });
    }
    for (const refusal of chunkText(reply.refusal ?? '', reply.chunkSize)) {
      frames.push({ data: chunk({ refusal }, null), text: false });
    }
    reply.toolCalls.forEach((call, index) => {
      frames.push({
        data: chunk(
          {
            tool_calls: [
              {
                index,
                id: call.id,
                type: 'function',
                function: { name: call.name, arguments: '' },
              },
            ],
          },
          null,
        ),
        text: false,
      });
      frames.push({
        data: chunk(
          { tool_calls: [{ index, function: { arguments: JSON.stringify(call.input) } }] },
          null,
        ),
        text: false,
      });
    });
    frames.push({ data: chunk({}, finishReason(reply)), text: false });
    if (usage) {
      frames.push({
        data: sseData({
          id: reply.id,
          object: 'chat.completion.chunk',
          created: created(reply),
          model: reply.model,
          system_fingerprint: null,
          choices: [],
          usage: usageOf(reply),
        }),
        text: false,
      });
    }
    frames.push({ data: sseData('[DONE]'), text: false });
    return frames;
  },

  streamError(_reply, error) {
    return [
      sseData({ error: { message: error.message, type: error.type, param: null, code: null } }),
    ];
  },
};
