import type {
  TranscriptEntry,
  TranscriptHeader,
  TranscriptIssue,
  TranscriptText,
} from '@keel/spec';
import { TRANSCRIPT_FORMAT_VERSION } from '@keel/spec';
import { closesBatch, isContinued } from './batch-framing';
import type { ReadableFile } from './file-system';
import { migrateTranscriptEntry } from './migrate-transcript-entry';
import { type FileLine, readLines } from './read-lines';

export interface ParsedLines {
  header: TranscriptHeader | undefined;
  version: number;
  entries: TranscriptEntry[];
  issues: TranscriptIssue[];
  /** The entries' lines measured (`TranscriptText`); left out when the entries were migrated. */
  text?: TranscriptText;
}

/**
 * A character V8 keeps at two bytes, or a `\u` escape that may stand for one (a line written with
 * every non-ASCII character escaped parses to such strings): either way the text counts as wide.
 */
const WIDE_OR_ESCAPED = /[\u0100-\uffff]|\\u/;

/** The longest first line read as a header. */
const MAX_HEADER_BYTES = 64 * 1024;

/** Reads the header from the first line, if the file starts with one (bounded read). */
export async function readHeader(
  file: ReadableFile,
  size: number,
): Promise<TranscriptHeader | undefined> {
  for await (const line of readLines(file, { start: 0, end: Math.min(size, MAX_HEADER_BYTES) })) {
    return line.terminated || size <= MAX_HEADER_BYTES ? parseHeader(line.text) : undefined;
  }
  return undefined;
}

export function parseHeader(text: string): TranscriptHeader | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const record = value as Record<string, unknown>;
    if (record['type'] !== 'header' || typeof record['version'] !== 'number') return undefined;
    return value as TranscriptHeader;
  } catch {
    return undefined;
  }
}

/**
 * Parses the lines between `start` and `end`. Line numbers are 1-based and reported only when
 * reading from the start. Torn writes are skipped and reported as `torn-last-line`: a last line
 * without `\n` that does not parse, and the lines of a batch whose last line never made it (see
 * `batch-framing.ts`). Any other bad line is reported as an issue and skipped, never fatal.
 */
export async function parseTranscriptLines(
  file: ReadableFile,
  range: { start: number; end: number },
  header: TranscriptHeader | undefined,
  signal?: AbortSignal,
): Promise<ParsedLines> {
  const version = header?.version ?? 0;
  const entries: TranscriptEntry[] = [];
  const issues: TranscriptIssue[] = [];
  /** Lines of a batch whose last line has not been seen yet. */
  let open: Array<{ line: FileLine; lineNumber: number }> = [];
  let lineNumber = 0;
  let chars = 0;
  let wide = false;
  const where = (line: FileLine, number: number) =>
    range.start === 0 ? { line: number, offset: line.offset } : { offset: line.offset };
  const take = (line: FileLine, number: number): void => {
    if (line.text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch (error) {
      issues.push({
        ...where(line, number),
        reason: line.terminated ? 'invalid-json' : 'torn-last-line',
        detail: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    const migrated = migrateTranscriptEntry(value, version);
    if (migrated.ok) {
      entries.push(migrated.entry);
      chars += line.text.length;
      if (!wide && WIDE_OR_ESCAPED.test(line.text)) wide = true;
    } else
      issues.push({ ...where(line, number), reason: 'invalid-entry', detail: migrated.detail });
  };
  for await (const line of readLines(file, range, { signal })) {
    lineNumber += 1;
    if (line.offset === 0 && header !== undefined) continue;
    if (isContinued(line.text) || (open.length > 0 && !closesBatch(line))) {
      // A line of a batch not closed yet, or a torn last line that leaves the batch open.
      open.push({ line, lineNumber });
      continue;
    }
    for (const member of open) take(member.line, member.lineNumber);
    open = [];
    take(line, lineNumber);
  }
  signal?.throwIfAborted();
  // A batch still open at the end was cut short: none of its lines count.
  for (const member of open) {
    issues.push({
      ...where(member.line, member.lineNumber),
      reason: 'torn-last-line',
      detail: 'line of an append that was cut short (its batch has no last line)',
    });
  }
  if (version !== TRANSCRIPT_FORMAT_VERSION) return { header, version, entries, issues };
  return { header, version, entries, issues, text: { chars, wide } };
}
