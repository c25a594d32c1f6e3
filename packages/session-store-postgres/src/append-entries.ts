import type {
  AppendOptions,
  AppendResult,
  SessionLease,
  TranscriptChangeKind,
  TranscriptEntry,
  TranscriptState,
} from '@keel/spec';
import { TRANSCRIPT_FORMAT_VERSION } from '@keel/spec';
import { entryProblem, normalizedEntry } from './entry-problem';
import { acquireLease, issuedLease, leaseChange } from './postgres-lease';
import { inTransaction, type PostgresClient } from './postgres-pool';
import {
  assertValidSessionId,
  InvalidTranscriptEntryError,
  SessionTakeoverError,
} from './postgres-store-error';
import { notifySql } from './session-notifications';
import type { StoreContext } from './store-context';
import {
  changeFrom,
  entryDigest,
  expectedSeq,
  missingState,
  selectTranscriptRow,
  stateOf,
  type TranscriptRow,
  transcriptRowOf,
} from './transcript-state';

/** One entry as it is stored: its JSON text, digest, size as a JSONL line, and what it is. */
interface PreparedEntry {
  text: string;
  digest: string;
  bytes: number;
  kind: string;
  role: string | null;
}

/**
 * `SessionStorage.append` over PostgreSQL: one transaction that (with a lease) holds the
 * session's fencing counter and checks the lease's token and expiry, locks the transcript row and
 * checks `expected`, and only then inserts every entry and moves the row's last sequence, digest
 * and size. A refusal throws `SessionTakeoverError` (phase `write`) and rolls everything back, a
 * transcript created by this call included. An append with `expected` and no lease writes under
 * this store's live lease of the session, or a lease taken just for the write (as the file store
 * takes its lock).
 */
export async function appendEntries(
  context: StoreContext,
  sessionId: string,
  entries: readonly TranscriptEntry[],
  options: AppendOptions = {},
): Promise<AppendResult> {
  const { signal, expected } = options;
  assertValidSessionId(sessionId);
  signal?.throwIfAborted();
  const prepared = prepareEntries(entries);
  if (options.lease !== undefined) issuedLease(options.lease, sessionId);
  await context.ready(signal);
  let lease = options.lease;
  let temporary: SessionLease | undefined;
  if (lease === undefined && expected !== undefined) {
    lease = context.liveLeases.get(sessionId);
    if (lease === undefined) {
      temporary = await acquireLease(context, sessionId, signal === undefined ? {} : { signal });
      lease = temporary;
    }
  }
  try {
    // A transaction left idle as long as a lease lives belongs to a frozen process: the server
    // ends it, so that its lock on the fencing counter never keeps the session from others.
    return await inTransaction(
      context.pool,
      signal,
      (client) => writeChecked(client, context, { sessionId, prepared, lease, expected, signal }),
      { idleTimeoutMs: context.lease.ttlMs },
    );
  } finally {
    await temporary?.release();
  }
}

/**
 * What a caller adds to an append's transaction (a queued append), run while it holds the
 * session's fencing counter and the locked transcript row.
 */
export interface WriteHooks {
  /** Which entries to write (by index), asked once the transcript row is locked. */
  select?(client: PostgresClient): Promise<readonly boolean[]>;
  /** Last, before the commit: the transcript's state before and after, and how many were written. */
  beforeCommit?(
    client: PostgresClient,
    write: { before: TranscriptState; after: TranscriptState; written: number },
  ): Promise<void>;
}

/**
 * `appendEntries` under `lease`, the transcript as it is when its row is locked, and `hooks` in the
 * same transaction: a queued append's check for copies, ledger row and release commit with it.
 */
export async function appendWithHooks(
  context: StoreContext,
  sessionId: string,
  entries: readonly TranscriptEntry[],
  options: { lease: SessionLease; hooks: WriteHooks; signal: AbortSignal | undefined },
): Promise<AppendResult> {
  const { lease, hooks, signal } = options;
  assertValidSessionId(sessionId);
  signal?.throwIfAborted();
  const prepared = prepareEntries(entries);
  issuedLease(lease, sessionId);
  await context.ready(signal);
  return inTransaction(
    context.pool,
    signal,
    (client) =>
      writeChecked(client, context, {
        sessionId,
        prepared,
        lease,
        expected: undefined,
        signal,
        hooks,
      }),
    { idleTimeoutMs: context.lease.ttlMs },
  );
}

interface WriteJob {
  sessionId: string;
  prepared: PreparedEntry[];
  lease: SessionLease | undefined;
  expected: TranscriptState | undefined;
  signal: AbortSignal | undefined;
  hooks?: WriteHooks;
}

async function writeChecked(
  client: PostgresClient,
  context: StoreContext,
  job: WriteJob,
): Promise<AppendResult> {
  const { sessionId, expected } = job;
  const s = context.schema;
  if (job.lease !== undefined) {
    const change = await leaseChange(client, s, job.lease, true);
    if (change !== undefined) throw refusal(sessionId, change);
  }
  const select = selectTranscriptRow(s, true);
  const seqAtExpected = expectedSeq(expected);
  let row = transcriptRowOf((await client.query(select, [sessionId, seqAtExpected])).rows[0]);
  let created = false;
  if (row === undefined) {
    if (expected?.exists === true) throw refusal(sessionId, 'missing');
    const inserted = await client.query(
      `INSERT INTO ${s}.transcripts (session_id, format_version) VALUES ($1, $2)
        ON CONFLICT (session_id) DO NOTHING RETURNING incarnation::text AS incarnation`,
      [sessionId, TRANSCRIPT_FORMAT_VERSION],
    );
    const incarnation = inserted.rows[0]?.['incarnation'];
    if (incarnation !== undefined) {
      created = true;
      row = {
        incarnation: String(incarnation),
        lastSeq: 0,
        lastDigest: '',
        totalBytes: 0,
        digestAtExpected: null,
      };
    } else {
      // Another writer created it meanwhile (and has committed): lock it as it is now.
      row = transcriptRowOf((await client.query(select, [sessionId, seqAtExpected])).rows[0]);
    }
  }
  if (row === undefined) throw refusal(sessionId, 'missing');
  if (expected !== undefined && !created) {
    const change = changeFrom(expected, row);
    if (change !== undefined) throw refusal(sessionId, change);
  }
  job.signal?.throwIfAborted();
  const keep = await job.hooks?.select?.(client);
  const prepared = keep === undefined ? job.prepared : job.prepared.filter((_, at) => keep[at]);
  // With the entries, in the same statement, the announcement, sent on commit: the gateways
  // waiting on this session look again at once.
  if (prepared.length > 0) await insertEntries(client, s, sessionId, row, prepared);
  const last = prepared.at(-1);
  const state = stateOf({
    incarnation: row.incarnation,
    lastSeq: row.lastSeq + prepared.length,
    lastDigest: last?.digest ?? row.lastDigest,
  });
  if (job.hooks?.beforeCommit !== undefined) {
    // A transcript this write created was missing before it.
    const before = created ? missingState : stateOf(row);
    await job.hooks.beforeCommit(client, { before, after: state, written: prepared.length });
  }
  return { state };
}

async function insertEntries(
  client: PostgresClient,
  s: string,
  sessionId: string,
  row: TranscriptRow,
  prepared: PreparedEntry[],
): Promise<void> {
  const offsets: number[] = [];
  let total = row.totalBytes;
  for (const entry of prepared) {
    offsets.push(total);
    total += entry.bytes;
  }
  await client.query(
    `WITH inserted AS (
        INSERT INTO ${s}.transcript_entries
          (session_id, seq, byte_offset, entry, digest, kind, role, format_version)
        SELECT $1, $2::bigint + n.position, n.byte_offset, n.entry, n.digest, n.kind, n.role, $3
        FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[])
          WITH ORDINALITY AS n (entry, digest, kind, role, byte_offset, position)
      ),
      moved AS (
        UPDATE ${s}.transcripts SET last_seq = $2::bigint + $9, last_digest = $10, total_bytes = $11
        WHERE session_id = $1 RETURNING session_id
      )
      ${notifySql(s)} FROM moved`,
    [
      sessionId,
      row.lastSeq,
      TRANSCRIPT_FORMAT_VERSION,
      prepared.map((entry) => entry.text),
      prepared.map((entry) => entry.digest),
      prepared.map((entry) => entry.kind),
      prepared.map((entry) => entry.role),
      offsets,
      prepared.length,
      prepared.at(-1)?.digest ?? row.lastDigest,
      total,
    ],
  );
}

/** Each entry checked as a current-format entry and serialised; the first bad one refuses the batch. */
function prepareEntries(entries: readonly TranscriptEntry[]): PreparedEntry[] {
  if (!Array.isArray(entries)) {
    throw new InvalidTranscriptEntryError({ index: 0, detail: 'entries is not an array' });
  }
  return entries.map((entry, index) => {
    const value = normalizedEntry(entry);
    const problem = entryProblem(value);
    if (problem !== undefined) throw new InvalidTranscriptEntryError({ index, detail: problem });
    const record = value as { type: string; role?: string };
    const text = JSON.stringify(value);
    return {
      text,
      digest: entryDigest(text),
      bytes: Buffer.byteLength(text) + 1,
      kind: record.type,
      role: record.type === 'message' ? (record.role ?? null) : null,
    };
  });
}

function refusal(sessionId: string, change: TranscriptChangeKind): SessionTakeoverError {
  return new SessionTakeoverError({ sessionId, phase: 'write', change });
}
