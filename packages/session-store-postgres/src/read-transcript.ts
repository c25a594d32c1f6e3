import type {
  TranscriptChangeKind,
  TranscriptEntry,
  TranscriptHeader,
  TranscriptIssue,
  TranscriptRead,
  TranscriptState,
} from '@keel/spec';
import { TRANSCRIPT_FORMAT_VERSION } from '@keel/spec';
import { entryProblem } from './entry-problem';
import { toNumber } from './postgres-pool';
import { assertValidSessionId } from './postgres-store-error';
import type { StoreContext } from './store-context';
import {
  changeFrom,
  expectedSeq,
  missingState,
  selectTranscriptRow,
  stateOf,
  transcriptRowOf,
} from './transcript-state';

/**
 * Every entry (`maxBytes` undefined), or those whose JSONL lines fit in the last `maxBytes` of
 * the transcript: one statement, so the header and the entries are read at the same moment.
 * A row that does not parse or is not a valid entry is reported in `issues` (offset: its
 * sequence number; line, on a whole read: as if exported to JSONL after its header) and skipped.
 */
export async function readTranscript(
  context: StoreContext,
  sessionId: string,
  maxBytes: number | undefined,
  signal: AbortSignal | undefined,
): Promise<TranscriptRead> {
  assertValidSessionId(sessionId);
  await context.ready(signal);
  const s = context.schema;
  const { rows } = await context.pool.query(
    `SELECT t.format_version, t.created_at, e.seq, e.entry, e.format_version AS entry_version
      FROM ${s}.transcripts t
      LEFT JOIN ${s}.transcript_entries e ON e.session_id = t.session_id
        AND e.byte_offset >= t.total_bytes - coalesce($2::bigint, t.total_bytes)
      WHERE t.session_id = $1
      ORDER BY e.byte_offset`,
    [sessionId, maxBytes === undefined ? null : Math.max(0, Math.floor(maxBytes))],
  );
  signal?.throwIfAborted();
  const first = rows[0];
  if (first === undefined) {
    return {
      header: undefined,
      version: TRANSCRIPT_FORMAT_VERSION,
      entries: [],
      issues: [],
      exists: false,
    };
  }
  const header = headerOf(sessionId, first);
  return {
    header,
    version: header.version,
    ...entriesOf(rows, maxBytes === undefined),
    exists: true,
  };
}

/**
 * The entries appended after `since` (`SessionStorage.readSince`): the transcript row, the digest
 * at `since`'s last entry and the entries after it, in one statement; `undefined` unless the row
 * is the same incarnation holding `since`'s last entry unchanged (as `compare` checks).
 */
export async function readTranscriptSince(
  context: StoreContext,
  sessionId: string,
  since: TranscriptState,
  signal: AbortSignal | undefined,
): Promise<TranscriptRead | undefined> {
  assertValidSessionId(sessionId);
  if (!since.exists) return undefined;
  await context.ready(signal);
  const s = context.schema;
  const { rows } = await context.pool.query(
    `SELECT t.incarnation::text AS incarnation, t.last_seq, t.last_digest, t.total_bytes,
        (SELECT d.digest FROM ${s}.transcript_entries d
          WHERE d.session_id = t.session_id AND d.seq = $2) AS digest_at_expected,
        t.format_version, t.created_at, e.seq, e.entry, e.format_version AS entry_version
      FROM ${s}.transcripts t
      LEFT JOIN ${s}.transcript_entries e ON e.session_id = t.session_id AND e.seq > $3
      WHERE t.session_id = $1
      ORDER BY e.seq`,
    [sessionId, expectedSeq(since), since.size],
  );
  signal?.throwIfAborted();
  const first = rows[0];
  const change = changeFrom(since, transcriptRowOf(first));
  if (first === undefined || (change !== undefined && change !== 'appended')) return undefined;
  return {
    header: headerOf(sessionId, first),
    version: Number(first['format_version']),
    ...entriesOf(rows, false),
    exists: true,
  };
}

function headerOf(sessionId: string, row: Record<string, unknown>): TranscriptHeader {
  return {
    type: 'header',
    version: Number(row['format_version']),
    sessionId,
    createdAt: (row['created_at'] as Date).toISOString(),
  };
}

/**
 * The entries of the rows that hold one (`seq` not null), parsed, with their issues and text. A
 * row's issue names its sequence number (`offset`) and, for a whole read, its line as if exported
 * to JSONL after its header.
 */
function entriesOf(
  rows: readonly Record<string, unknown>[],
  whole: boolean,
): Pick<TranscriptRead, 'entries' | 'issues' | 'text'> {
  const entries: TranscriptEntry[] = [];
  const issues: TranscriptIssue[] = [];
  let chars = 0;
  let wide = false;
  for (const row of rows) {
    if (row['seq'] === null) continue;
    const seq = toNumber(row['seq']);
    const where = whole ? { line: seq + 1, offset: seq } : { offset: seq };
    const text = String(row['entry']);
    const parsed = parseEntry(text, Number(row['entry_version']));
    if (parsed.ok) {
      entries.push(parsed.entry);
      chars += text.length;
      if (!wide && WIDE_OR_ESCAPED.test(text)) wide = true;
    } else issues.push({ ...where, reason: parsed.reason, detail: parsed.detail });
  }
  return { entries, issues, text: { chars, wide } };
}

/**
 * A character V8 keeps at two bytes, or a `\u` escape that may stand for one: either way the
 * entries' text counts as wide (`TranscriptText`).
 */
const WIDE_OR_ESCAPED = /[\u0100-\uffff]|\\u/;

type Parsed =
  | { ok: true; entry: TranscriptEntry }
  | { ok: false; reason: 'invalid-json' | 'invalid-entry'; detail: string };

/**
 * One stored entry, read back. Rows are written in the current format only; a row of a newer
 * format (written by a newer package) is reported rather than guessed at.
 */
function parseEntry(text: string, version: number): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: 'invalid-json', detail: (error as Error).message };
  }
  if (version !== TRANSCRIPT_FORMAT_VERSION) {
    return {
      ok: false,
      reason: 'invalid-entry',
      detail: `unsupported transcript format version ${version}`,
    };
  }
  const problem = entryProblem(value);
  return problem === undefined
    ? { ok: true, entry: value as TranscriptEntry }
    : { ok: false, reason: 'invalid-entry', detail: problem };
}

/** The transcript's state now: one indexed row. */
export async function transcriptState(
  context: StoreContext,
  sessionId: string,
  signal: AbortSignal | undefined,
): Promise<TranscriptState> {
  assertValidSessionId(sessionId);
  await context.ready(signal);
  const { rows } = await context.pool.query(selectTranscriptRow(context.schema, false), [
    sessionId,
    0,
  ]);
  const row = transcriptRowOf(rows[0]);
  return row === undefined ? missingState : stateOf(row);
}

/** What changed since `expected`: the transcript row and the digest at `expected.size`, one statement. */
export async function compareTranscript(
  context: StoreContext,
  sessionId: string,
  expected: TranscriptState,
  signal: AbortSignal | undefined,
): Promise<TranscriptChangeKind | undefined> {
  assertValidSessionId(sessionId);
  await context.ready(signal);
  const { rows } = await context.pool.query(selectTranscriptRow(context.schema, false), [
    sessionId,
    expectedSeq(expected),
  ]);
  return changeFrom(expected, transcriptRowOf(rows[0]));
}

/** Every session id with a transcript. */
export async function listSessions(
  context: StoreContext,
  signal: AbortSignal | undefined,
): Promise<string[]> {
  await context.ready(signal);
  const { rows } = await context.pool.query(`SELECT session_id FROM ${context.schema}.transcripts`);
  signal?.throwIfAborted();
  return rows.map((row) => String(row['session_id']));
}
