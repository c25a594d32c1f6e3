// A call's answer as a `chat.completion` object: the model that actually answered, the text and
// tool calls (arguments as JSON strings, ids as the model gave them), the finish reason and usage
// in OpenAI's names. Built from the outcome alone, so a repeated request renders the same answer.
import type { CallOutcome, FinishReason, ToolUseBlock, Usage } from '@keel/spec';

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
}

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: 0;
    message: {
      role: 'assistant';
      content: string | null;
      refusal: null;
      tool_calls?: ChatToolCall[];
    };
    logprobs: null;
    finish_reason: ChatFinishReason;
  }>;
  usage?: ChatUsage;
}

/** What every completion and chunk of one answer shares. */
export interface CompletionIdentity {
  id: string;
  created: number;
  model: string;
}

/** `chatcmpl-…` from a call's id (`openai-<uuid>`), so every chunk and repeat of it agree. */
export function completionId(callId: string): string {
  return `chatcmpl-${callId.replace(/^openai-/, '').replaceAll('-', '')}`;
}

/** Stable for an outcome (a repeat gets the same id): derived from the call's own id. */
export function identityOf(outcome: CallOutcome, model?: string): CompletionIdentity {
  const started = outcome.attempts[0]?.startedAt ?? Date.now();
  return {
    id: completionId(outcome.callId),
    created: Math.floor(started / 1000),
    model: model ?? outcome.model ?? 'unknown',
  };
}

export function finishReasonOf(
  finish: FinishReason | undefined,
  hasToolCalls: boolean,
): ChatFinishReason {
  switch (finish) {
    case 'length':
      return 'length';
    case 'content-filter':
      return 'content_filter';
    case 'tool-calls':
      return 'tool_calls';
    case 'stop':
    case 'other':
    case undefined:
      return hasToolCalls ? 'tool_calls' : 'stop';
    default: {
      const unexpected: never = finish;
      return unexpected;
    }
  }
}

export function chatUsageOf(usage: Usage): ChatUsage {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    ...(usage.cacheReadTokens === undefined
      ? {}
      : { prompt_tokens_details: { cached_tokens: usage.cacheReadTokens } }),
  };
}

export function toolCallOf(block: ToolUseBlock): ChatToolCall {
  return {
    id: block.id,
    type: 'function',
    function: { name: block.name, arguments: JSON.stringify(block.input) },
  };
}

/** The text and tool calls of a reply, in OpenAI's terms. */
export function replyParts(outcome: CallOutcome): { text: string; toolCalls: ChatToolCall[] } {
  let text = '';
  const toolCalls: ChatToolCall[] = [];
  for (const block of outcome.content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'tool_use') toolCalls.push(toolCallOf(block));
  }
  return { text, toolCalls };
}

/** A reply as a non-streamed `chat.completion`. */
export function chatCompletionOf(outcome: CallOutcome): ChatCompletion {
  const { text, toolCalls } = replyParts(outcome);
  return {
    ...identityOf(outcome),
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && toolCalls.length > 0 ? null : text,
          refusal: null,
          ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
        },
        logprobs: null,
        finish_reason: finishReasonOf(outcome.finish, toolCalls.length > 0),
      },
    ],
    ...(outcome.usage === undefined ? {} : { usage: chatUsageOf(outcome.usage) }),
  };
}
