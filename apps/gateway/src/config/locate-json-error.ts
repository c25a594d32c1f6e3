// V8 says where JSON broke for some errors ("at position 12") and not for others ("Unexpected
// token '}', ..." quotes the text instead — which may hold a key). A configuration error must
// point at the line and column, so the place is found by scanning the text again.

/** Thrown inside the scan: the offset of the first character that cannot be there. */
class Broken {
  constructor(readonly offset: number) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/**
 * The offset of the first character where `text` stops being JSON (its length when the text
 * ends too early), or `undefined` when it is valid JSON.
 */
export function jsonErrorOffset(text: string): number | undefined {
  let at = 0;
  const fail = (): never => {
    throw new Broken(at);
  };
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text.charAt(at))) at += 1;
  };
  const expect = (char: string) => {
    if (text.charAt(at) !== char) fail();
    at += 1;
  };
  const string = () => {
    expect('"');
    while (at < text.length) {
      const char = text.charAt(at);
      if (char === '"') {
        at += 1;
        return;
      }
      if (char < ' ') fail();
      if (char === '\\') {
        at += 1;
        const escaped = text.charAt(at);
        if (escaped === 'u') {
          for (let digit = 1; digit <= 4; digit += 1) {
            if (!/[0-9a-fA-F]/.test(text.charAt(at + digit))) {
              at += digit;
              fail();
            }
          }
          at += 4;
        } else if (!ESCAPES.has(escaped)) fail();
      }
      at += 1;
    }
    fail();
  };
  const literal = (word: string) => {
    for (const char of word) expect(char);
  };
  const value = (): void => {
    space();
    switch (text.charAt(at)) {
      case '{':
        members('}', () => {
          space();
          string();
          space();
          expect(':');
          value();
        });
        break;
      case '[':
        members(']', value);
        break;
      case '"':
        string();
        break;
      case 't':
        literal('true');
        break;
      case 'f':
        literal('false');
        break;
      case 'n':
        literal('null');
        break;
      default:
        NUMBER.lastIndex = at;
        if (!NUMBER.test(text)) fail();
        at = NUMBER.lastIndex;
    }
  };
  const members = (close: string, member: () => void) => {
    at += 1;
    space();
    if (text.charAt(at) === close) {
      at += 1;
      return;
    }
    for (;;) {
      member();
      space();
      if (text.charAt(at) === close) {
        at += 1;
        return;
      }
      expect(',');
    }
  };
  try {
    value();
    space();
    if (at < text.length) fail();
    return undefined;
  } catch (error) {
    if (error instanceof Broken) return error.offset;
    throw error;
  }
}

/** ` (line 3, column 14)`, or ` (line 3, column 14: the file ends there)`, or nothing. */
export function describeJsonError(text: string): string {
  const offset = jsonErrorOffset(text);
  if (offset === undefined) return '';
  const before = text.slice(0, offset).split('\n');
  const where = `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
  return offset >= text.length ? ` (${where}: the file ends too early)` : ` (${where})`;
}
