// A non-streamed Chat Completions answer read as the one chunk it amounts to, so that the stream's
// decoder (tool calls, refusals, finish reasons, usage, malformed answers) reads both alike.
import type { OpenAIChatChunk } from './from-openai-chat-stream';
import { MalformedResponseError } from './transport-error';

/** The fields of a `chat.completion` the transport reads (the SDK's `ChatCompletion` fits). */
export interface OpenAIChatCompletion {
  choices: Array<{
    message?: {
      content?: string | null;
      refusal?: string | null;
      tool_calls?: Array<{
        id?: string;
        function?: { name?: string; arguments?: string };
      }> | null;
    };
    finish_reason?: string | null;
  }>;
  usage?: OpenAIChatChunk['usage'];
}

/**
 * The completion as one stream chunk: its message as the delta (each tool call at its position as
 * its `index`), its finish reason and usage. An answer without a choice throws
 * `MalformedResponseError`; one without a finish reason is cut short, as a stream would be.
 */
export function chatCompletionAsChunk(completion: OpenAIChatCompletion): OpenAIChatChunk {
  const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
  if (choice === undefined || choice === null || typeof choice !== 'object') {
    throw new MalformedResponseError({
      message: 'The Chat Completions answer has no choice.',
    });
  }
  const message = choice.message ?? {};
  const calls = message.tool_calls ?? [];
  return {
    choices: [
      {
        delta: {
          ...(message.content == null ? {} : { content: message.content }),
          ...(message.refusal == null ? {} : { refusal: message.refusal }),
          ...(calls.length === 0
            ? {}
            : {
                tool_calls: calls.map((call, index) => ({
                  index,
                  ...(call.id === undefined ? {} : { id: call.id }),
                  ...(call.function === undefined ? {} : { function: call.function }),
                })),
              }),
        },
        finish_reason: choice.finish_reason ?? null,
      },
    ],
    ...(completion.usage == null ? {} : { usage: completion.usage }),
  };
}
