import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type {
  SessionStorage,
  StorageCallOptions,
  TranscriptIssue,
  TranscriptRead,
} from '@keel/spec';
import { abortable } from './abortable';
import { appendEntries } from './append-entries';
import { type MigrateResult, migratePool } from './migrate';
import { acquireLease } from './postgres-lease';
import { type PostgresConnectionOptions, type PostgresPool, resolvePool } from './postgres-pool';
import { assertValidSessionId } from './postgres-store-error';
import { createPostgresTurnClaims } from './postgres-turn-claims';
import {
  compareTranscript,
  listSessions,
  readTranscript,
  readTranscriptSince,
  transcriptState,
} from './read-transcript';
import { asStorageCall } from './storage-failure';
import { createStoreContext } from './store-context';
import { DEFAULT_INSPECT_BYTES, inspectTrailingToolUses } from './trailing-tool-uses';

export type PostgresSessionStorageOptions = PostgresConnectionOptions & {
  /** The PostgreSQL schema that holds the tables; default `keel`. */
  schema?: string;
  /** Migrate the schema on first use (default true); with false, call `migrate()` first. */
  migrate?: boolean;
  /**
   * Hears every read that skipped rows it could not use (not JSON, not a transcript entry, a newer
   * format): the session and each row (`offset`: its sequence number; `line` on a whole read), so
   * none is dropped silently. Must not throw (a throwing listener is ignored).
   */
  onIssues?: (report: { sessionId: string; issues: readonly TranscriptIssue[] }) => void;
  lease?: {
    /** A lease's time to live without a heartbeat (by the database's clock); default 10 000 ms. */
    ttlMs?: number;
    /** How long `lease()` waits for the current holder; default 30 000 ms. */
    timeoutMs?: number;
    /** How often a waiting `lease()` looks again (jittered) if no release is announced; default 50 ms. */
    pollMs?: number;
    /** How often a held lease is renewed; default a third of its ttl. */
    heartbeatMs?: number;
    /** How this process names itself in lease rows (shown in lease timeouts); default `host:pid:random`. */
    holder?: string;
  };
};

/** The PostgreSQL-backed `SessionStorage`, plus its schema's migration and `close()`. */
export interface PostgresSessionStorage extends SessionStorage {
  /** Always given here: the entries after the state's last sequence number, in one statement. */
  readSince: NonNullable<SessionStorage['readSince']>;
  /** The schema the tables live in. */
  readonly schema: string;
  /** The pool this store queries (the one given, or the one opened for `connectionString`). */
  readonly pool: PostgresPool;
  /** Creates or upgrades the schema now (`createPostgresSessionStorage` does it on first use). */
  migrate(options?: StorageCallOptions): Promise<MigrateResult>;
  /**
   * One `SELECT 1`: resolves while the database answers, rejects with a `StorageError` (reason
   * `unavailable`) when it is down, unreachable or does not answer within the pool's timeouts.
   */
  ping(options?: StorageCallOptions): Promise<void>;
  /**
   * Stops every lease heartbeat, releases this store's live leases (so other gateways need not
   * wait for them to expire) and ends the pool if this store opened it. Later calls reject.
   */
  close(): Promise<void>;
}

const DEFAULT_READ_TAIL_BYTES = 1024 * 1024;

/** Creates the `SessionStorage` over PostgreSQL that several gateways share. */
export function createPostgresSessionStorage(
  options: PostgresSessionStorageOptions,
): PostgresSessionStorage {
  const schema = options.schema ?? 'keel';
  const { pool, owned } = resolvePool(options);
  /** Rows that could not be used are reported once per read, with the session and the row. */
  const reportIssues = (sessionId: string, read: TranscriptRead): TranscriptRead => {
    if (read.issues.length > 0 && options.onIssues !== undefined) {
      try {
        options.onIssues({ sessionId, issues: read.issues });
      } catch {
        // A throwing listener is ignored: the read itself succeeded.
      }
    }
    return read;
  };
  const context = createStoreContext({
    pool,
    schema,
    migrate: options.migrate ?? true,
    lease: {
      ttlMs: options.lease?.ttlMs ?? 10_000,
      timeoutMs: options.lease?.timeoutMs ?? 30_000,
      pollMs: options.lease?.pollMs ?? 50,
      heartbeatMs: options.lease?.heartbeatMs,
      holder: options.lease?.holder ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    },
  });

  return {
    schema,
    pool,
    migrate: (callOptions = {}) => migratePool(pool, schema, callOptions.signal),

    // The database's failures (down, unreachable, past a timeout, out of disk) reach the caller as
    // `StorageError`s (kind `storage`), never as raw driver errors a classifier could take for a
    // model provider's connection.
    read: (sessionId, callOptions = {}) =>
      asStorageCall('read', sessionId, callOptions.signal, async () =>
        reportIssues(
          sessionId,
          await readTranscript(context, sessionId, undefined, callOptions.signal),
        ),
      ),

    readTail: (sessionId, callOptions = {}) =>
      asStorageCall('read', sessionId, callOptions.signal, async () =>
        reportIssues(
          sessionId,
          await readTranscript(
            context,
            sessionId,
            callOptions.maxBytes ?? DEFAULT_READ_TAIL_BYTES,
            callOptions.signal,
          ),
        ),
      ),

    readSince: (sessionId, since, callOptions = {}) =>
      asStorageCall('read', sessionId, callOptions.signal, async () => {
        const read = await readTranscriptSince(context, sessionId, since, callOptions.signal);
        return read === undefined ? undefined : reportIssues(sessionId, read);
      }),

    state: (sessionId, callOptions = {}) =>
      asStorageCall('state', sessionId, callOptions.signal, () =>
        transcriptState(context, sessionId, callOptions.signal),
      ),

    compare: (sessionId, expected, callOptions = {}) =>
      asStorageCall('compare', sessionId, callOptions.signal, () =>
        compareTranscript(context, sessionId, expected, callOptions.signal),
      ),

    lease: (sessionId, leaseOptions = {}) =>
      asStorageCall('lease', sessionId, leaseOptions.signal, async () => {
        assertValidSessionId(sessionId);
        await context.ready(leaseOptions.signal);
        return acquireLease(context, sessionId, leaseOptions);
      }),

    append: (sessionId, entries, appendOptions = {}) =>
      asStorageCall('append', sessionId, appendOptions.signal, () =>
        appendEntries(context, sessionId, entries, appendOptions),
      ),

    inspectTrailingToolUses: (sessionId, inspectOptions = {}) =>
      asStorageCall('read', sessionId, inspectOptions.signal, () =>
        inspectTrailingToolUses(
          context,
          sessionId,
          inspectOptions.maxBytes ?? DEFAULT_INSPECT_BYTES,
          inspectOptions.signal,
        ),
      ),

    list: (callOptions = {}) =>
      asStorageCall('list', undefined, callOptions.signal, () =>
        listSessions(context, callOptions.signal),
      ),

    // One running turn per session across gateways: a row per session in `turn_claims`.
    turnClaims: createPostgresTurnClaims({
      gate: context,
      pool,
      defaultTtlMs: context.lease.ttlMs,
      listener: context.listener,
    }),

    ping: (callOptions = {}) =>
      asStorageCall('ping', undefined, callOptions.signal, async () => {
        await abortable(pool.query('SELECT 1'), callOptions.signal);
      }),

    async close() {
      if (context.closed) return;
      const live = [...context.liveLeases.values()];
      for (const stop of [...context.heartbeats]) stop();
      await Promise.allSettled(live.map((lease) => lease.release()));
      context.closed = true;
      await context.listener.close();
      if (owned) await pool.end();
    },
  };
}
