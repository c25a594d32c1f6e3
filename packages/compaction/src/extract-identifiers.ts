const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'`\\)\]}]+/g;
const PATH_PATTERN =
  /(?<![\w.@+-])(?:~|\.{1,2})?\/[\w.@+-]+(?:\/[\w.@+-]+)*|\b[\w.@+-]+(?:\/[\w.@+-]+)+\.[A-Za-z0-9]{1,8}\b/g;
const UUID_PATTERN =
  /\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g;
const PREFIXED_ID_PATTERN = /\b[A-Za-z]{2,}(?:_[A-Za-z0-9]+)+\b/g;
const HEX_PATTERN = /\b[0-9a-f]{7,64}\b/g;
const TRAILING_PUNCTUATION = /[.,;:!?'"]+$/;

interface Span {
  start: number;
  end: number;
  value: string;
}

function pushMatches(
  text: string,
  pattern: RegExp,
  found: Span[],
  accept: (match: string) => boolean,
): void {
  for (const match of text.matchAll(pattern)) {
    const value = match[0].replace(TRAILING_PUNCTUATION, '');
    const start = match.index ?? 0;
    if (value.length >= 3 && accept(value)) found.push({ start, end: start + value.length, value });
  }
}

const hasDigit = (value: string): boolean => /\d/.test(value);

/**
 * The exact identifiers in a text, unique, in order of first appearance: URLs, file paths
 * (absolute, `./`, `../`, `~/`, or relative with an extension), UUIDs, prefixed ids with a digit
 * (`toolu_01A…`, `call_7`, `req_42`) and hex digests of 7+ characters with a digit and a letter.
 */
export function extractIdentifiers(text: string): string[] {
  const found: Span[] = [];
  pushMatches(text, URL_PATTERN, found, () => true);
  const withoutUrls = text.replace(URL_PATTERN, (url) => ' '.repeat(url.length));
  pushMatches(withoutUrls, PATH_PATTERN, found, (value) => value.includes('/') && value !== '//');
  pushMatches(withoutUrls, UUID_PATTERN, found, () => true);
  pushMatches(withoutUrls, PREFIXED_ID_PATTERN, found, hasDigit);
  pushMatches(withoutUrls, HEX_PATTERN, found, (value) => hasDigit(value) && /[a-f]/.test(value));
  // a match inside a longer one (a hex run inside a UUID, an id inside a path) is dropped
  found.sort((left, right) => left.start - right.start || right.end - left.end);
  const unique: string[] = [];
  const seen = new Set<string>();
  let coveredUntil = -1;
  for (const span of found) {
    if (span.end <= coveredUntil) continue;
    coveredUntil = span.end;
    if (seen.has(span.value)) continue;
    seen.add(span.value);
    unique.push(span.value);
  }
  return unique;
}

/**
 * Identifiers that a summary of these texts must keep: the `limit` unique ones seen most
 * recently, ordered by where each last appears (oldest first).
 */
export function collectIdentifiers(texts: readonly string[], limit: number): string[] {
  const picked: string[] = [];
  const seen = new Set<string>();
  for (let index = texts.length - 1; index >= 0 && picked.length < limit; index -= 1) {
    const found = extractIdentifiers(texts[index] ?? '');
    for (let inner = found.length - 1; inner >= 0 && picked.length < limit; inner -= 1) {
      const value = found[inner];
      if (value === undefined || seen.has(value)) continue;
      seen.add(value);
      picked.push(value);
    }
  }
  return picked.reverse();
}
