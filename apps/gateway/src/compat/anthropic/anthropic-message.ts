// A call's reply as Anthropic's `message` object (the non-streamed answer, and the content a
// buffered stream replays): the model that answered, its blocks, why it stopped, and usage with
// the cache counts apart (Keel's `inputTokens` includes them, Anthropic's `input_tokens` does not).
import type { CallOutcome, ContentBlock, FinishReason, Usage } from '@keel/spec';

export type AnthropicStopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'refusal';

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export type AnthropicContent =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicContent[];
  stop_reason: AnthropicStopReason;
  stop_sequence: null;
  usage: AnthropicUsage;
}

/**
 * Keel's usage in Anthropic's terms: `input_tokens` without the cached ones. A call that reported
 * none is all zeros.
 */
export function anthropicUsage(usage: Usage | undefined): AnthropicUsage {
  const cacheRead = usage?.cacheReadTokens ?? 0;
  const cacheWrite = usage?.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.inputTokens ?? 0) - cacheRead - cacheWrite),
    output_tokens: usage?.outputTokens ?? 0,
    cache_read_input_tokens: cacheRead,
    cache_creation_input_tokens: cacheWrite,
  };
}

/**
 * Why the model stopped. Which stop sequence matched is not carried by the spec's finish reason,
 * so a stop is always `end_turn` (with `stop_sequence: null`).
 */
export function stopReason(
  finish: FinishReason | undefined,
  content: readonly ContentBlock[],
): AnthropicStopReason {
  switch (finish) {
    case 'length':
      return 'max_tokens';
    case 'tool-calls':
      return 'tool_use';
    case 'content-filter':
      return 'refusal';
    case 'stop':
    case 'other':
    case undefined:
      return content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
    default: {
      const unexpected: never = finish;
      return unexpected;
    }
  }
}

/** The assistant's blocks (a reply holds text and tool_use only). */
export function anthropicContent(content: readonly ContentBlock[]): AnthropicContent[] {
  return content.flatMap((block): AnthropicContent[] => {
    if (block.type === 'text') return block.text === '' ? [] : [{ type: 'text', text: block.text }];
    if (block.type === 'tool_use') {
      return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
    }
    return [];
  });
}

/**
 * The model in the wire's form: `providerId/model` as Keel names it (what a client can send back
 * as `model`).
 */
export function answeringModel(outcome: CallOutcome, fallback: string): string {
  return outcome.model ?? fallback;
}

/** A reply outcome as a `message` object. */
export function toAnthropicMessage(
  outcome: CallOutcome,
  options: { id: string; model: string },
): AnthropicMessage {
  return {
    id: options.id,
    type: 'message',
    role: 'assistant',
    model: answeringModel(outcome, options.model),
    content: anthropicContent(outcome.content),
    stop_reason: stopReason(outcome.finish, outcome.content),
    stop_sequence: null,
    usage: anthropicUsage(outcome.usage),
  };
}
