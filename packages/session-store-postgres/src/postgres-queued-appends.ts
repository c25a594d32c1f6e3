import type {
  AppendResult,
  QueuedSince,
  StorageCallOptions,
  TranscriptEntry,
  TranscriptState,
} from '@keel/spec';
import { TRANSCRIPT_FORMAT_VERSION } from '@keel/spec';
import { appendWithHooks } from './append-entries';
import { entryProblem } from './entry-problem';
import { acquireLease, issuedLease, releaseLeaseSql } from './postgres-lease';
import type { PostgresClient } from './postgres-pool';
import { PostgresStoreError } from './postgres-store-error';
import { compareTranscript, transcriptState } from './read-transcript';
import type { StoreContext } from './store-context';

/**
 * Queued appends in PostgreSQL: each is written under a lease of its own, in one transaction that
 * also inserts its `queued_appends` row (the transcript's state before and after it) and lets the
 * lease go, so a turn that takes the lease next sees both or neither. A message whose every copy
 * is stored already (a client's retry) is found before any lease is taken.
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
    const { signal } = options;
    await context.ready(signal);
    const ids = entries.flatMap((entry) =>
      entry.type === 'message' && entry.clientMessageId !== undefined
        ? [entry.clientMessageId]
        : [],
    );
    if (ids.length > 0 && ids.length === entries.length) {
      const stored = await storedClientIds(context.pool, sessionId, ids);
      if (ids.every((id) => stored.has(id))) {
        return { state: await transcriptState(context, sessionId, signal) };
      }
    }
    const lease = await acquireLease(context, sessionId, options);
    try {
      const result = await appendWithHooks(context, sessionId, entries, {
        lease,
        signal,
        hooks: {
          // A client's message queued at two gateways at once (a retry) is stored once.
          async select(client) {
            const stored = await storedClientIds(client, sessionId, ids);
            return entries.map(
              (entry) =>
                entry.type !== 'message' ||
                entry.clientMessageId === undefined ||
                !stored.has(entry.clientMessageId),
            );
          },
          async beforeCommit(client, { before, after, written }) {
            // The ledger row (when anything was written) and the release: one statement.
            const ledger = `ledger AS (
                INSERT INTO ${context.schema}.queued_appends (session_id, before_state, after_state)
                  VALUES ($1, $3, $4))`;
            await client.query(
              written > 0
                ? releaseLeaseSql(context.schema, ledger)
                : releaseLeaseSql(context.schema),
              written > 0
                ? [sessionId, lease.token, JSON.stringify(before), JSON.stringify(after)]
                : [sessionId, lease.token],
            );
          },
        },
      });
      issuedLease(lease, sessionId).letGo();
      return result;
    } finally {
      // Let go already when the write committed; else (a refusal, a failure) here.
      await lease.release();
    }
  }

  /** Which of the client message ids the session's transcript holds already. */
  async function storedClientIds(
    client: Pick<PostgresClient, 'query'>,
    sessionId: string,
    ids: readonly string[],
  ): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    // The entry's exact JSON text holds `"clientMessageId":"…"` only as that key (quotes inside
    // strings are escaped), and a row that is not JSON does not fail the search.
    const needles = ids.map((id) => `"clientMessageId":${JSON.stringify(id)}`);
    const { rows } = await client.query(
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
