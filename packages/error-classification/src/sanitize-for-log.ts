export interface SanitizeForLogOptions {
  /** Maximum length of the result, marker included. Default 500. */
  maxLength?: number;
}

const DEFAULT_MAX_LENGTH = 500;
const ELLIPSIS = '…';

// ANSI escape sequences: CSI (ESC [ or the C1 byte 0x9b) with parameters and a final byte,
// OSC (ESC ] or 0x9d) up to BEL or ST, and two-byte ESC sequences.
const ANSI_PATTERN =
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|(?:\u001b\]|\u009d)[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|\u001b[@-Z\\-_]/g;

// C0 controls, DEL, C1 controls, Unicode line/paragraph separators and bidi overrides.
const CONTROL_PATTERN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeControl(character: string): string {
  switch (character) {
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    default: {
      const code = character.charCodeAt(0);
      return code <= 0xff
        ? `\\x${code.toString(16).padStart(2, '0')}`
        : `\\u${code.toString(16).padStart(4, '0')}`;
    }
  }
}

function toText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/**
 * Makes untrusted text safe for one log line (CWE-117): drops ANSI escape sequences, escapes
 * control characters (C0, DEL, C1, U+2028/9, bidi overrides) as visible `\n`, `\t`, `\x07`…,
 * and caps the length with a trailing `…`.
 */
export function sanitizeForLog(text: unknown, options: SanitizeForLogOptions = {}): string {
  const maxLength = Math.max(2, Math.floor(options.maxLength ?? DEFAULT_MAX_LENGTH));
  let raw = toText(text);
  // Do not escape megabytes only to throw them away; generous so that ANSI removal still fits.
  const inputBudget = maxLength * 8 + 64;
  let truncated = false;
  if (raw.length > inputBudget) {
    raw = raw.slice(0, inputBudget);
    truncated = true;
  }
  const escaped = raw.replace(ANSI_PATTERN, '').replace(CONTROL_PATTERN, escapeControl);
  if (!truncated && escaped.length <= maxLength) return escaped;
  let kept = escaped.slice(0, maxLength - ELLIPSIS.length);
  // Never end on half a surrogate pair or half of an escape this function produced.
  kept = kept.replace(/[\ud800-\udbff]$/, '').replace(/\\(?:x[0-9a-f]?|u[0-9a-f]{0,3})?$/, '');
  return kept + ELLIPSIS;
}
