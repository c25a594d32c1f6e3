import type { ContentBlock, Message } from '@keel/spec';
import { UnsupportedRequestError } from './transport-error';

export type TextBlock = Extract<ContentBlock, { type: 'text' }>;
export type ToolUseBlock = Extract<ContentBlock, { type: 'tool_use' }>;
export type ToolResultBlock = Extract<ContentBlock, { type: 'tool_result' }>;

/** A message's content as blocks (a plain string is one text block). */
export function contentBlocks(message: Message): ContentBlock[] {
  return typeof message.content === 'string'
    ? [{ type: 'text', text: message.content }]
    : message.content;
}

/**
 * Prefix that marks a failed tool result in wire formats without an error flag (OpenAI chat and
 * responses). Anthropic has `is_error` and gets the content unchanged.
 */
export const TOOL_ERROR_PREFIX = '[tool error] ';

export function toolResultText(block: ToolResultBlock): string {
  return block.isError === true ? TOOL_ERROR_PREFIX + block.content : block.content;
}

/**
 * Converts each message by role, in order: assistant messages one way; user and tool messages
 * (tool messages hold `tool_result` blocks) the other.
 */
export function convertByRole<T>(
  messages: readonly Message[],
  convert: { assistant(message: Message): T[]; user(message: Message): T[] },
  /** Where the converted items are appended (a new array by default), in order. */
  into: T[] = [],
): T[] {
  // A loop, not `flatMap`: the whole conversation is converted on every model call (issue 20).
  for (const message of messages) {
    let items: T[];
    switch (message.role) {
      case 'assistant':
        items = convert.assistant(message);
        break;
      case 'user':
      case 'tool':
        items = convert.user(message);
        break;
      default: {
        const unexpected: never = message.role;
        throw new UnsupportedRequestError({ message: `Unknown role ${String(unexpected)}` });
      }
    }
    for (const item of items) into.push(item);
  }
  return into;
}
