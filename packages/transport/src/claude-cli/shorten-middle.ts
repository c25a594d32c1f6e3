/** The visible marker that stands for the characters a shortened text left out. */
export function cutMarker(count: number): string {
  return `[… ${count} characters omitted …]`;
}

/** `text` cut at `index`, moved back one place if it would split a surrogate pair. */
function boundary(text: string, index: number): number {
  const code = text.charCodeAt(index - 1);
  return index > 0 && code >= 0xd800 && code <= 0xdbff ? index - 1 : index;
}

/**
 * `text` with its middle replaced by a marker counting what was left out, keeping `keep`
 * characters (about half from each end). The start of a log or a message says what it is about
 * and its end how it ended: both matter more than the middle. Never splits a surrogate pair.
 */
export function shortenMiddle(text: string, keep: number): string {
  if (text.length <= keep) return text;
  const headLength = boundary(text, Math.ceil(Math.max(0, keep) / 2));
  const tailStart = boundary(text, text.length - Math.floor(Math.max(0, keep) / 2));
  const omitted = tailStart - headLength;
  return `${text.slice(0, headLength)}\n${cutMarker(omitted)}\n${text.slice(tailStart)}`;
}

/**
 * The longest rendering of `text` (shortened in the middle) whose rendered length is at most
 * `maxLength`, or `undefined` when even an empty text does not fit. `render` may escape (JSON),
 * so the text to keep is found by shrinking until the rendering fits.
 */
export function renderWithin(
  text: string,
  maxLength: number,
  render: (text: string) => string,
): string | undefined {
  const full = render(text);
  if (full.length <= maxLength) return full;
  let keep = maxLength - (render('').length + cutMarker(text.length).length + 2);
  while (keep > 0) {
    const rendered = render(shortenMiddle(text, keep));
    if (rendered.length <= maxLength) return rendered;
    // Escapes make the rendering longer than the text: keep that much less, then try again.
    keep -= Math.max(1, rendered.length - maxLength);
  }
  return undefined;
}
