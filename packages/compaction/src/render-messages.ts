import type { ContentBlock, MessageEntry } from '@keel/spec';
import { CHARS_PER_TOKEN } from './estimate-tokens';

function renderBlock(role: string, block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return `[${role}] ${block.text}`;
    case 'tool_use':
      return `[${role} tool call ${block.name} ${block.id}] ${JSON.stringify(block.input)}`;
    case 'tool_result':
      return `[tool result ${block.toolUseId}${block.isError === true ? ' error' : ''}] ${block.content}`;
    default: {
      const unreachable: never = block;
      return unreachable;
    }
  }
}

/** One message as plain text, a line per block. */
export function renderMessage(message: MessageEntry): string {
  return message.content.map((block) => renderBlock(message.role, block)).join('\n');
}

/** Cuts the middle out of a text longer than `maxChars`, leaving a visible marker. */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const marker = `\n[… ${text.length - maxChars} characters omitted …]\n`;
  const room = Math.max(0, maxChars - marker.length);
  const head = Math.ceil(room / 2);
  return text.slice(0, head) + marker + text.slice(text.length - (room - head));
}

/** Messages as one transcript text of at most `maxTokens` (estimated), oldest first. */
export function renderMessages(messages: readonly MessageEntry[], maxTokens: number): string {
  return truncateMiddle(messages.map(renderMessage).join('\n\n'), maxTokens * CHARS_PER_TOKEN);
}

/** The words of a message without structural ids: text, tool inputs, tool result contents. */
export function messageText(message: MessageEntry): string {
  const parts: string[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'tool_use':
        parts.push(JSON.stringify(block.input));
        break;
      case 'tool_result':
        parts.push(block.content);
        break;
      default: {
        const unreachable: never = block;
        parts.push(unreachable);
      }
    }
  }
  return parts.join('\n');
}
