import { createHash } from 'node:crypto';
import type { TranscriptChangeKind, TranscriptState } from '@keel/spec';
import { toNumber } from './postgres-pool';

/**
 * A transcript's state in this store: `identity` is its row's incarnation (a new row for the same
 * session id would get another), `size` its last sequence number, and the tail digest covers its
 * last entry (`tailLength` 1, or 0 while it has none). Comparing is one indexed lookup.
 */
export const missingState: TranscriptState = {
  exists: false,
  identity: '',
  size: 0,
  tailLength: 0,
  tailDigest: '',
};

/** The digest stored with each entry: SHA-256 of its JSON text. */
export function entryDigest(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** What the store knows of a transcript row when checking or writing. */
export interface TranscriptRow {
  incarnation: string;
  lastSeq: number;
  lastDigest: string;
  totalBytes: number;
  /** The digest of the entry at the expected state's size, when one was asked for. */
  digestAtExpected: string | null;
}

export function stateOf(row: Pick<TranscriptRow, 'incarnation' | 'lastSeq' | 'lastDigest'>) {
  return {
    exists: true,
    identity: `pg:${row.incarnation}`,
    size: row.lastSeq,
    tailLength: row.lastSeq > 0 ? 1 : 0,
    tailDigest: row.lastSeq > 0 ? row.lastDigest : '',
  } satisfies TranscriptState;
}

/**
 * Selects a transcript row (`$1` the session id, `$2` the sequence number whose digest to return,
 * or 0), optionally locking it.
 */
export function selectTranscriptRow(schema: string, lock: boolean): string {
  return `SELECT t.incarnation::text AS incarnation, t.last_seq, t.last_digest, t.total_bytes,
      (SELECT e.digest FROM ${schema}.transcript_entries e
        WHERE e.session_id = t.session_id AND e.seq = $2) AS digest_at_expected
    FROM ${schema}.transcripts t WHERE t.session_id = $1${lock ? ' FOR UPDATE OF t' : ''}`;
}

export function transcriptRowOf(
  row: Record<string, unknown> | undefined,
): TranscriptRow | undefined {
  if (row === undefined) return undefined;
  return {
    incarnation: String(row['incarnation']),
    lastSeq: toNumber(row['last_seq']),
    lastDigest: String(row['last_digest']),
    totalBytes: toNumber(row['total_bytes']),
    digestAtExpected: (row['digest_at_expected'] as string | null | undefined) ?? null,
  };
}

/** The sequence number whose digest a check against `expected` needs (0: none). */
export function expectedSeq(expected: TranscriptState | undefined): number {
  return expected?.exists === true && expected.tailLength > 0 ? expected.size : 0;
}

/** What changed from `expected` to `current`, or `undefined` when nothing did. */
export function changeFrom(
  expected: TranscriptState,
  current: TranscriptRow | undefined,
): TranscriptChangeKind | undefined {
  if (current === undefined) return expected.exists ? 'missing' : undefined;
  if (!expected.exists) return 'appended';
  if (`pg:${current.incarnation}` !== expected.identity) return 'replaced';
  if (current.lastSeq < expected.size) return 'truncated';
  if (expected.tailLength > 0) {
    if (current.digestAtExpected === null) return 'truncated';
    if (current.digestAtExpected !== expected.tailDigest) return 'rewritten';
  }
  return current.lastSeq > expected.size ? 'appended' : undefined;
}
