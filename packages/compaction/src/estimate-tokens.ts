import type { ContentBlock, MessageEntry, TranscriptEntry } from '@keel/spec';

/** Characters per token of the fallback estimate; deliberately conservative for English and code. */
export const CHARS_PER_TOKEN = 4;

/** Tokens of a piece of text by the character-based estimate. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

function blockChars(block: ContentBlock): number {
  switch (block.type) {
    case 'text':
      return block.text.length;
    case 'tool_use':
      return block.name.length + JSON.stringify(block.input).length;
    case 'tool_result':
      return block.content.length;
    default: {
      const unreachable: never = block;
      return unreachable;
    }
  }
}

/** Tokens one message entry contributes to the context, by the character-based estimate. */
export function estimateMessageTokens(entry: MessageEntry): number {
  let chars = 0;
  for (const block of entry.content) chars += blockChars(block);
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** Tokens one transcript entry contributes to the context (0 for turn and model-selection records). */
export function estimateEntryTokens(entry: TranscriptEntry): number {
  switch (entry.type) {
    case 'message':
      return estimateMessageTokens(entry);
    case 'compaction':
      return estimateTextTokens(entry.summary);
    case 'turn':
    case 'model-selection':
      return 0;
    default: {
      const unreachable: never = entry;
      return unreachable;
    }
  }
}

export interface ContextTokenEstimate {
  tokens: number;
  /** `usage` when the newest provider-reported usage anchored the estimate, else `chars`. */
  source: 'usage' | 'chars';
}

/**
 * Tokens of the live context: the previous summary plus the messages in context.
 *
 * When an assistant message in context carries provider usage, the newest one anchors the
 * estimate (`inputTokens + outputTokens`, which already counts everything before it) and only
 * the messages after it are estimated by characters. Otherwise every part is estimated.
 */
export function estimateContextTokens(
  messages: readonly MessageEntry[],
  previousSummary?: string,
): ContextTokenEstimate {
  let anchor = -1;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const usage = messages[index]?.usage;
    if (usage !== undefined && usage.inputTokens + usage.outputTokens > 0) {
      anchor = index;
      break;
    }
  }
  let tokens = 0;
  if (anchor >= 0) {
    const usage = messages[anchor]?.usage;
    tokens = (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0);
  } else if (previousSummary !== undefined) {
    tokens = estimateTextTokens(previousSummary);
  }
  for (let index = anchor + 1; index < messages.length; index += 1) {
    const message = messages[index];
    if (message !== undefined) tokens += estimateMessageTokens(message);
  }
  return { tokens, source: anchor >= 0 ? 'usage' : 'chars' };
}
