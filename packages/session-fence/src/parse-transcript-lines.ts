import type { FileHandle } from 'node:fs/promises';
import type { TranscriptEntry, TranscriptHeader, TranscriptIssue } from '@keel/spec';
import { migrateTranscriptEntry } from './migrate-transcript-entry';
import { readLines } from './read-lines';

export interface ParsedLines {
  header: TranscriptHeader | undefined;
  version: number;
  entries: TranscriptEntry[];
  issues: TranscriptIssue[];
}

/** Reads the header from the first line, if the file starts with one (bounded read). */
export async function readHeader(
  handle: FileHandle,
  size: number,
): Promise<TranscriptHeader | undefined> {
  for await (const line of readLines(handle, { start: 0, end: Math.min(size, 64 * 1024) })) {
    return line.terminated ? parseHeader(line.text) : undefined;
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
 * reading from the start. A last line without `\n` that does not parse is a torn write and is
 * skipped; any other bad line is reported as an issue and skipped, never fatal.
 */
export async function parseTranscriptLines(
  handle: FileHandle,
  range: { start: number; end: number },
  header: TranscriptHeader | undefined,
): Promise<ParsedLines> {
  const version = header?.version ?? 0;
  const entries: TranscriptEntry[] = [];
  const issues: TranscriptIssue[] = [];
  let lineNumber = 0;
  for await (const line of readLines(handle, range)) {
    lineNumber += 1;
    const where =
      range.start === 0 ? { line: lineNumber, offset: line.offset } : { offset: line.offset };
    if (line.offset === 0 && header !== undefined) continue;
    if (line.text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch (error) {
      issues.push({
        ...where,
        reason: line.terminated ? 'invalid-json' : 'torn-last-line',
        detail: error instanceof Error ? error.message : String(error),
      });
      continue;
    }
    const migrated = migrateTranscriptEntry(value, version);
    if (migrated.ok) entries.push(migrated.entry);
    else issues.push({ ...where, reason: 'invalid-entry', detail: migrated.detail });
  }
  return { header, version, entries, issues };
}
