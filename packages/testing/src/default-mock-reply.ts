import type { RecordedRequest } from './mock-provider-types';

/** The text of a message content (a string, or text parts; `tool_result` blocks by their content). */
export function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const part of content) {
    if (typeof part === 'string') {
      parts.push(part);
      continue;
    }
    if (part === null || typeof part !== 'object') continue;
    const record = part as Record<string, unknown>;
    if (typeof record['text'] === 'string') parts.push(record['text']);
    else if (record['type'] === 'tool_result') parts.push(textOfContent(record['content']));
  }
  // Agent CLIs (Claude Code) put `<system-reminder>` blocks beside the user's words: skip them.
  const spoken = parts.filter((part) => !part.trimStart().startsWith('<system-reminder>'));
  return (spoken.length > 0 ? spoken : parts).join('\n');
}

/**
 * The text of the last user message of a recorded request (Anthropic `messages`, OpenAI chat
 * `messages`, or responses `input`), or `''` when there is none.
 */
export function lastUserText(request: Pick<RecordedRequest, 'messages'>): string {
  const { messages } = request;
  if (typeof messages === 'string') return messages;
  if (!Array.isArray(messages)) return '';
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as Record<string, unknown> | null | undefined;
    if (message === null || typeof message !== 'object') continue;
    if (message['role'] === 'user') return textOfContent(message['content']);
    if (message['type'] === 'function_call_output' && typeof message['output'] === 'string') {
      return message['output'];
    }
  }
  return '';
}

/** FNV-1a, 32 bit, as 8 hex digits: a stable fingerprint of a string. */
export function stableHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/**
 * The deterministic default reply: derived from the last user text only, so equal input gives
 * equal output on every api.
 */
export function defaultMockReply(request: Pick<RecordedRequest, 'messages'>): string {
  const text = lastUserText(request).replace(/\s+/g, ' ').trim();
  const preview = text.length > 80 ? `${text.slice(0, 80)}...` : text;
  return `Mock reply ${stableHash(text)}: you said "${preview}".`;
}

/** A rough token estimate (about 4 characters per token), at least 1. */
export function estimateTokens(value: unknown): number {
  if (value === undefined) return 1;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return Math.max(1, Math.ceil(text.length / 4));
}
