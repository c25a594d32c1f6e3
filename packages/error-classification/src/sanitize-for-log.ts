import { stripVTControlCharacters } from 'node:util';

export interface SanitizeForLogOptions {
  /** Maximum length of the result, marker included. Default 500. */
  maxLength?: number;
}

const DEFAULT_MAX_LENGTH = 500;
const ELLIPSIS = '…';

/**
 * One character that must not reach a log as it is: controls (C0, DEL, C1), format characters
 * (bidi marks, embeddings, overrides and isolates, LRM/RLM/ALM, zero-width characters, the BOM,
 * tag characters), line and paragraph separators, and lone surrogates.
 */
const UNSAFE = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]$/u;

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}

/** The character as the log shows it: itself, or a visible escape (`\n`, `\x07`, `\u200e`…). */
function escapeCharacter(character: string): string {
  if (character === '\\') return '\\\\';
  if (!UNSAFE.test(character)) return character;
  if (character === '\n') return '\\n';
  if (character === '\r') return '\\r';
  if (character === '\t') return '\\t';
  const code = character.codePointAt(0) ?? 0;
  if (code <= 0xff) return `\\x${hex(code, 2)}`;
  return code <= 0xffff ? `\\u${hex(code, 4)}` : `\\u{${hex(code, 1)}}`;
}

function toText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** The start of `text` that can still give `maxLength` characters once escape sequences go. */
function boundedInput(text: string, maxLength: number): { text: string; cut: boolean } {
  const budget = maxLength * 8 + 64;
  if (text.length <= budget) return { text, cut: false };
  const head = text.slice(0, budget);
  return { text: /[\ud800-\udbff]$/.test(head) ? head.slice(0, -1) : head, cut: true };
}

/**
 * Makes untrusted text safe for one log line (CWE-117): removes terminal escape sequences
 * (`util.stripVTControlCharacters`), escapes backslashes and every control, format or separator
 * character left (`\\`, `\n`, `\x07`, `\u202e`, `\u{e0041}`) and lone surrogates, and caps the
 * length with a trailing `…`, never cutting an escape in half.
 */
export function sanitizeForLog(text: unknown, options: SanitizeForLogOptions = {}): string {
  const maxLength = Math.max(2, Math.floor(options.maxLength ?? DEFAULT_MAX_LENGTH));
  const input = boundedInput(toText(text), maxLength);
  const pieces: string[] = [];
  let length = 0;
  let cut = input.cut;
  for (const character of stripVTControlCharacters(input.text)) {
    const piece = escapeCharacter(character);
    if (length + piece.length > maxLength) {
      cut = true;
      break;
    }
    pieces.push(piece);
    length += piece.length;
  }
  if (!cut) return pieces.join('');
  while (length > maxLength - ELLIPSIS.length) length -= pieces.pop()?.length ?? length;
  return pieces.join('') + ELLIPSIS;
}
