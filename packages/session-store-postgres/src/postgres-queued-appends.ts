import type {
  AppendResult,
  QueuedSince,
  StorageCallOptions,
  TranscriptEntry,
  TranscriptState,
} from '@keel/spec';
import { TRANSCRIPT_FORMAT_VERSION } from '@keel/spec';
import { appendEntries } from './append-entries';
import { entryProblem } from './entry-problem';
import { acquireLease } from './postgres-lease';
import { PostgresStoreError } from './postgres-store-error';
import { compareTranscript, transcriptState } from './read-transcript';
import type { StoreContext } from './store-context';

/**
 * Queued appends in PostgreSQL: each is written under a lease of its own, and a `queued_appends`
 * row (the transcript's state before and after it) is inserted before the lease is let go, so a
 * turn that takes the lease sees both or neither.
 */
export function createPostgresQueuedAppends(context: StoreContext) {
  async function appendQueued(
    sessionId: string,
    entries: readonly TranscriptEntry[],
    options: StorageCallOptions = {},
  ): Promise<AppendResult> {
    for (const entry of entries) {
      if (entry.type !== 'message' || entry.role !== 'user') {
        throw new PostgresStoreError({
          message: `Only user messages can be queued for a running turn, not a ${entry.type === 'message' ? `${entry.role} message` : entry.type}`,
        });
      }
    }
    await context.ready(options.signal);
    const lease = await acquireLease(context, sessionId, options);
    try {
      const before = await transcriptState(context, sessionId, options.signal);
      // A client's message queued at two gateways at once (a retry) is stored once.
      const stored = await storedClientIds(sessionId, entries);
      const fresh = entries.filter(
        (entry) =>
          entry.type !== 'message' ||
          entry.clientMessageId === undefined ||
          !stored.has(entry.clientMessageId),
      );
      if (fresh.length === 0) return { state: before };
      const result = await appendEntries(context, sessionId, fresh, {
        ...options,
        lease,
        expected: before,
      });
      await context.pool.query(
        `INSERT INTO ${context.schema}.queued_appends (session_id, before_state, after_state)
          VALUES ($1, $2, $3)`,
        [sessionId, JSON.stringify(before), JSON.stringify(result.state)],
      );
      return result;
    } finally {
      await lease.release();
    }
  }

  /** Which of the entries' client message ids the session's transcript holds already. */
  async function storedClientIds(
    sessionId: string,
    entries: readonly TranscriptEntry[],
  ): Promise<Set<string>> {
    const ids = entries.flatMap((entry) =>
      entry.type === 'message' && entry.clientMessageId !== undefined
        ? [entry.clientMessageId]
        : [],
    );
    if (ids.length === 0) return new Set();
    // The entry's exact JSON text holds `"clientMessageId":"…"` only as that key (quotes inside
    // strings are escaped), and a row that is not JSON does not fail the search.
    const needles = ids.map((id) => `"clientMessageId":${JSON.stringify(id)}`);
    const { rows } = await context.pool.query(
      `SELECT needle FROM unnest($2::text[]) AS needle
        WHERE EXISTS (SELECT 1 FROM ${context.schema}.transcript_entries
          WHERE session_id = $1 AND strpos(entry, needle) > 0)`,
      [sessionId, needles],
    );
    const found = new Set(rows.map((row) => String(row['needle'])));
    return new Set(ids.filter((_, index) => found.has(needles[index]!)));
  }

  async function queuedSince(
    sessionId: string,
    expected: TranscriptState,
    options: StorageCallOptions = {},
  ): Promise<QueuedSince> {
    let current = expected;
    let queued = 0;
    for (;;) {
      const change = await compareTranscript(context, sessionId, current, options.signal);
      if (change === undefined) {
        if (queued === 0) return { change: undefined, state: current, queued };
        const entries = await entriesBetween(sessionId, expected.size, current.size);
        return entries === undefined
          ? { change: 'appended' }
          : { change: undefined, state: current, queued, entries };
      }
      if (change !== 'appended') return { change };
      // Grew from `current`: was that a queued append starting exactly there?
      const { rows } = await context.pool.query(
        `SELECT after_state FROM ${context.schema}.queued_appends
          WHERE session_id = $1 AND before_state::jsonb ->> 'identity' = $2
            AND (before_state::jsonb ->> 'size')::bigint = $3
          LIMIT 1`,
        [sessionId, current.identity, current.size],
      );
      const after = rows[0]?.['after_state'];
      if (after === undefined) return { change };
      current = JSON.parse(String(after)) as TranscriptState;
      queued += 1;
    }
  }

  /** The entries after sequence number `from` up to `to`, or `undefined` if one does not read back. */
  async function entriesBetween(
    sessionId: string,
    from: number,
    to: number,
  ): Promise<TranscriptEntry[] | undefined> {
    const { rows } = await context.pool.query(
      `SELECT entry, format_version FROM ${context.schema}.transcript_entries
        WHERE session_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq`,
      [sessionId, from, to],
    );
    const entries: TranscriptEntry[] = [];
    for (const row of rows) {
      if (Number(row['format_version']) !== TRANSCRIPT_FORMAT_VERSION) return undefined;
      let value: unknown;
      try {
        value = JSON.parse(String(row['entry']));
      } catch {
        return undefined;
      }
      if (entryProblem(value) !== undefined) return undefined;
      entries.push(value as TranscriptEntry);
    }
    return entries;
  }

  return { appendQueued, queuedSince };
}
