import type { ContentBlock, MessageEntry } from '@keel/spec';
import { estimateTextTokens, quarterTokens } from './estimate-tokens';

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

const marker = (omitted: number): string => `\n[… ${omitted} characters omitted …]\n`;

const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code < 0xe000;

/**
 * Cuts the middle out of a text estimated at more than `maxTokens`, leaving a visible marker: the
 * head and the tail each keep about half of the budget. Never splits a surrogate pair. Linear.
 */
export function truncateMiddle(text: string, maxTokens: number): string {
  if (estimateTextTokens(text) <= maxTokens) return text;
  const room = Math.max(0, maxTokens * 4 - 4 * estimateTextTokens(marker(text.length)));
  const headRoom = Math.ceil(room / 2);
  let head = 0;
  for (let used = 0; head < text.length; head += 1) {
    used += quarterTokens(text.charCodeAt(head));
    if (used > headRoom) break;
  }
  if (head > 0 && isLowSurrogate(text.charCodeAt(head))) head -= 1;
  let tail = text.length;
  for (let used = 0; tail > head; tail -= 1) {
    used += quarterTokens(text.charCodeAt(tail - 1));
    if (used > room - headRoom) break;
  }
  if (tail < text.length && isLowSurrogate(text.charCodeAt(tail))) tail += 1;
  return text.slice(0, head) + marker(tail - head) + text.slice(tail);
}

/** Messages as one transcript text of at most `maxTokens` (estimated), oldest first. */
export function renderMessages(messages: readonly MessageEntry[], maxTokens: number): string {
  return truncateMiddle(messages.map(renderMessage).join('\n\n'), maxTokens);
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
