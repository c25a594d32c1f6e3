/**
 * How a multi-entry append stays all-or-nothing across a crash (format rule, every version).
 *
 * An append writes all of its lines with one `write()`, but a process killed or a machine that
 * loses power in the middle of it can leave only the first lines of the batch on disk, each of
 * them complete. So the lines of one append are framed: every line of a batch except its last
 * ends with one space before its newline (`{...} \n`, a "continued" line); the last line ends
 * as every other line does (`{...}\n`). JSON allows the space, so every line is still a JSON
 * object for any JSONL reader, and `JSON.stringify` never ends a line with a space itself.
 *
 * A batch is committed once its last (uncontinued) line is complete. Readers and the repair
 * before the next append treat continued lines that no complete uncontinued line follows as
 * torn, together with a torn last line: a partially written batch is never read. Only the end of
 * a file can hold one, since each append first repairs what the previous one left.
 */
const continuedEnd = ' \n';
const lineEnd = '\n';

/** The text of one append: each entry on its own line, all but the last marked continued. */
export function frameBatch(lines: readonly string[]): string {
  let text = '';
  lines.forEach((line, index) => {
    text += line + (index < lines.length - 1 ? continuedEnd : lineEnd);
  });
  return text;
}

/** A line (without its newline) that is not the last of its batch. */
export function isContinued(text: string): boolean {
  return text.endsWith(' ');
}

/** A last line without its newline that still holds a whole JSON value (only the `\n` was lost). */
export function isCompleteJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a line ends its batch: a terminated uncontinued line, or a last line that lost only
 * its newline (whole JSON, uncontinued). Continued lines before it are then committed with it.
 */
export function closesBatch(line: { text: string; terminated: boolean }): boolean {
  if (isContinued(line.text)) return false;
  return line.terminated || isCompleteJson(line.text);
}
