import type { ContentBlock, MessageEntry } from '@keel/spec';

/*
 * The character-based estimate, counted in quarter tokens per UTF-16 unit: Latin script, digits,
 * code and ASCII punctuation about 4 characters per token; other alphabets (Greek, Cyrillic,
 * Hebrew, Arabic, Indic, Thai, …) and symbols about 2; CJK ideographs, kana, Hangul, Yi and
 * full-width forms about 1 (where 4 characters per token would undercount them 3–4×), as is a
 * character outside the BMP (its surrogate pair counts once). One pass, no allocation.
 */
const NARROW = 1;
const ALPHABET = 2;
const WIDE = 4;

/** Text with nothing above U+036F is all narrow: its length alone gives the estimate. */
const BEYOND_LATIN = /[^\u0000-\u036f]/;

/** Quarter tokens of one UTF-16 unit (ranges in ascending order). */
export function quarterTokens(code: number): number {
  if (code < 0x0370) return NARROW; // Latin, IPA, combining marks
  if (code < 0x1100) return ALPHABET; // Greek … Georgian
  if (code < 0x1200) return WIDE; // Hangul Jamo
  if (code < 0x2e80) return ALPHABET; // Ethiopic … Greek extended, punctuation, symbols
  if (code < 0xa4d0) return WIDE; // CJK radicals and symbols, kana, Bopomofo, ideographs, Yi
  if (code < 0xa960) return ALPHABET;
  if (code < 0xa980) return WIDE; // Hangul Jamo extended-A
  if (code < 0xac00) return ALPHABET;
  if (code < 0xdc00) return WIDE; // Hangul syllables, Jamo extended-B, high surrogates
  if (code < 0xe000) return 0; // low surrogates: the high one counted the character
  if (code < 0xf900) return ALPHABET; // private use
  if (code < 0xfb00) return WIDE; // CJK compatibility ideographs
  if (code < 0xfe30) return ALPHABET;
  if (code < 0xfe50) return WIDE; // CJK compatibility forms
  if (code < 0xff00) return ALPHABET;
  if (code < 0xfff0) return WIDE; // half-width and full-width forms
  return ALPHABET;
}

/** Quarter tokens of a text. */
function textQuarters(text: string): number {
  if (!BEYOND_LATIN.test(text)) return text.length * NARROW;
  let quarters = 0;
  for (let index = 0; index < text.length; index += 1) {
    quarters += quarterTokens(text.charCodeAt(index));
  }
  return quarters;
}

/** Tokens of a piece of text by the character-based estimate. Linear in its length. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(textQuarters(text) / 4);
}

function blockQuarters(block: ContentBlock): number {
  switch (block.type) {
    case 'text':
      return textQuarters(block.text);
    case 'tool_use':
      return textQuarters(block.name) + textQuarters(JSON.stringify(block.input));
    case 'tool_result':
      return textQuarters(block.content);
    default: {
      const unreachable: never = block;
      return unreachable;
    }
  }
}

/**
 * Estimates already made, by entry. A transcript entry is never changed once written, and a turn
 * hands the same entry objects to the next one, so the threshold check at every turn estimates
 * only the entries it has not seen (the conversation's history is not scanned again).
 */
const estimated = new WeakMap<MessageEntry, number>();

/** Tokens one message entry contributes to the context, by the character-based estimate. */
export function estimateMessageTokens(entry: MessageEntry): number {
  const known = estimated.get(entry);
  if (known !== undefined) return known;
  let quarters = 0;
  for (const block of entry.content) quarters += blockQuarters(block);
  const tokens = Math.ceil(quarters / 4);
  estimated.set(entry, tokens);
  return tokens;
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
