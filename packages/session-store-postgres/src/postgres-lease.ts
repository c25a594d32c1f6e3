import type {
  LeaseEvent,
  LeaseOptions,
  SessionLease,
  StorageCallOptions,
  TranscriptChangeKind,
} from '@keel/spec';
import { inTransaction, type PostgresClient, type PostgresPool } from './postgres-pool';
import {
  PostgresStoreError,
  SessionLeaseTimeoutError,
  SessionTakeoverError,
} from './postgres-store-error';
import { RELEASED_READ, releasedProperty } from './released-property';
import { leaseChannelOf } from './session-notifications';
import type { StoreContext } from './store-context';

/** What this package knows of each lease it issued. */
interface IssuedLease {
  context: StoreContext;
  sessionId: string;
  token: string;
  /**
   * Marks the lease let go by a committed transaction that ran `releaseLeaseSql` for it: its
   * heartbeat stops, and `release()` sends nothing more.
   */
  letGo(): void;
}

const issued = new WeakMap<SessionLease, IssuedLease>();

/** The lease as issued by a store of this package for `sessionId`, or an error. */
export function issuedLease(lease: SessionLease, sessionId: string): IssuedLease {
  const known = issued.get(lease);
  if (known === undefined || known.sessionId !== sessionId) {
    throw new PostgresStoreError({
      message: `The lease given was not issued by @keel/session-store-postgres for session ${sessionId}`,
    });
  }
  return known;
}

type Attempt = { token: string } | { token: undefined; holder: string; expiresInMs: number };

/**
 * Waits for the session's lease: each attempt, in one transaction, locks the session's fencing
 * counter, finds no live lease (expiry judged by the database's clock) and then bumps the counter
 * and writes the lease row with the new token. While another holds it, the next attempt comes
 * when a gateway announces the lease let go (`NOTIFY` on the lease channel, heard from before the
 * attempt that found it held), or after `pollMs` (jittered; sooner when the other lease expires
 * sooner) if no announcement comes, until `timeoutMs`.
 */
export async function acquireLease(
  context: StoreContext,
  sessionId: string,
  options: LeaseOptions,
): Promise<SessionLease> {
  const { signal } = options;
  const ttlMs = positive(options.ttlMs ?? context.lease.ttlMs, 'ttlMs');
  const timeoutMs = Math.max(0, options.timeoutMs ?? context.lease.timeoutMs);
  const deadline = performance.now() + timeoutMs;
  // Heard from before the first look: a release while an attempt runs wakes the next wait.
  const releases = context.listener.leaseReleases(sessionId);
  try {
    for (;;) {
      signal?.throwIfAborted();
      const attempt = await inTransaction(
        context.pool,
        signal,
        (client) => tryAcquire(client, context, sessionId, ttlMs),
        { idleTimeoutMs: context.lease.ttlMs },
      );
      if (attempt.token !== undefined) {
        const lease = createLease(context, { sessionId, token: attempt.token, ttlMs, options });
        if (signal?.aborted) {
          // Granted as the caller gave up: nobody would release it, and its heartbeat would keep it.
          await lease.release();
          throw signal.reason;
        }
        return lease;
      }
      const remaining = deadline - performance.now();
      if (remaining <= 0) {
        throw new SessionLeaseTimeoutError({ sessionId, timeoutMs, holder: attempt.holder });
      }
      // Held by another: this store listens from now on (one connection, kept for later waits).
      context.listener.listen();
      const poll = context.lease.pollMs * (0.5 + Math.random());
      await releases.next({
        timeoutMs: Math.max(1, Math.min(remaining, attempt.expiresInMs, poll)),
        ...(signal === undefined ? {} : { signal }),
      });
    }
  } finally {
    releases.stop();
  }
}

async function tryAcquire(
  client: PostgresClient,
  context: StoreContext,
  sessionId: string,
  ttlMs: number,
): Promise<Attempt> {
  const s = context.schema;
  await lockCounter(client, s, sessionId, 'UPDATE', true);
  // Read in its own statement, after the lock: a statement that waited for a row lock sees that
  // row as it is now, but every other row as it was when the statement began, so a lease
  // written by the transaction that held the lock would be missed by a join.
  const { rows } = await client.query(
    `SELECT holder, ceil(extract(epoch FROM (expires_at - clock_timestamp())) * 1000) AS expires_in_ms
      FROM ${s}.session_leases WHERE session_id = $1`,
    [sessionId],
  );
  const current = rows[0];
  const expiresInMs = Number(current?.['expires_in_ms'] ?? 0);
  if (expiresInMs > 0) {
    return { token: undefined, holder: String(current?.['holder']), expiresInMs };
  }
  const granted = await client.query(
    `WITH bumped AS (
        UPDATE ${s}.session_fences SET token = token + 1 WHERE session_id = $1 RETURNING token
      )
      INSERT INTO ${s}.session_leases AS l (session_id, token, holder, acquired_at, expires_at)
      SELECT $1, bumped.token, $2, clock_timestamp(), clock_timestamp() + $3::float8 * interval '1 millisecond'
      FROM bumped
      ON CONFLICT (session_id) DO UPDATE SET token = excluded.token, holder = excluded.holder,
        acquired_at = excluded.acquired_at, expires_at = excluded.expires_at
      RETURNING l.token::text AS token`,
    [sessionId, context.lease.holder, ttlMs],
  );
  return { token: String(granted.rows[0]?.['token']) };
}

/**
 * Locks the session's fencing counter (`UPDATE` to issue a token, `SHARE` to write under one)
 * and returns it; `create` makes the counter (at 0) when the session has none yet.
 */
async function lockCounter(
  client: PostgresClient,
  s: string,
  sessionId: string,
  mode: 'UPDATE' | 'SHARE',
  create: boolean,
): Promise<string | undefined> {
  const lock = `SELECT token::text AS token FROM ${s}.session_fences WHERE session_id = $1 FOR ${mode}`;
  let { rows } = await client.query(lock, [sessionId]);
  if (rows.length === 0 && create) {
    await client.query(
      `INSERT INTO ${s}.session_fences (session_id, token) VALUES ($1, 0) ON CONFLICT DO NOTHING`,
      [sessionId],
    );
    ({ rows } = await client.query(lock, [sessionId]));
  }
  const token = rows[0]?.['token'];
  return token === undefined ? undefined : String(token);
}

/**
 * Whether the lease with `token` is still the session's current one: `stale-token` when a newer
 * token was issued, `lock-lost` when the lease row is gone, belongs to no one or has expired
 * (by the database's clock). With `client` inside a write's transaction, `lockCounter` holds the
 * counter (FOR SHARE) until the write commits, so no new lease can be issued in between; the
 * lease row is read after that lock, in its own statement (see `tryAcquire`).
 */
export async function leaseChange(
  client: PostgresClient | PostgresPool,
  schema: string,
  lease: { sessionId: string; token: string },
  lockCounterForWrite: boolean,
): Promise<'stale-token' | 'lock-lost' | undefined> {
  const current = lockCounterForWrite
    ? await lockCounter(client as PostgresClient, schema, lease.sessionId, 'SHARE', false)
    : undefined;
  const { rows } = await client.query(
    `SELECT (SELECT token::text FROM ${schema}.session_fences WHERE session_id = $1) AS current,
        l.token::text AS lease_token, l.expires_at > clock_timestamp() AS live
      FROM (SELECT 1) AS one
      LEFT JOIN ${schema}.session_leases l ON l.session_id = $1`,
    [lease.sessionId],
  );
  const row = rows[0] ?? {};
  const counter = current ?? row['current'];
  if (counter === null || counter === undefined) return 'lock-lost';
  if (BigInt(String(counter)) > BigInt(lease.token)) return 'stale-token';
  return row['lease_token'] === lease.token && row['live'] === true ? undefined : 'lock-lost';
}

interface LeaseSpec {
  sessionId: string;
  token: string;
  ttlMs: number;
  options: LeaseOptions;
}

/**
 * Deletes the lease row of `$1` with token `$2` and, if it was there, announces the release on the
 * schema's lease channel (sent on commit): the gateways waiting for the lease try again at once.
 * `also`: more data-modifying `name AS (…)` clauses run in the same statement (one round trip).
 */
export function releaseLeaseSql(schema: string, also?: string): string {
  return `WITH ${also === undefined ? '' : `${also},`} gone AS (
      DELETE FROM ${schema}.session_leases WHERE session_id = $1 AND token = $2 RETURNING session_id)
    SELECT pg_notify('${leaseChannelOf(schema)}', session_id) FROM gone`;
}

function createLease(context: StoreContext, spec: LeaseSpec): SessionLease {
  const { sessionId, token, ttlMs } = spec;
  const { pool, schema: s } = context;
  let released = false;
  let lost = false;
  let beating = false;

  const report = (event: LeaseEvent): void => {
    try {
      spec.options.onEvent?.(event);
    } catch {
      // A throwing listener is ignored (LeaseOptions.onEvent).
    }
  };
  const stopHeartbeat = (): void => {
    clearInterval(timer);
    context.heartbeats.delete(stopHeartbeat);
  };
  const markLost = (): void => {
    stopHeartbeat();
    if (context.liveLeases.get(sessionId) === lease) context.liveLeases.delete(sessionId);
    if (lost || released) return;
    lost = true;
    report({ type: 'lease-lost', sessionId, token });
  };
  /** Extends a live lease by `ttlMs` from now (database time); false when it is no longer live. */
  const extend = async (): Promise<boolean> => {
    const result = await pool.query(
      `UPDATE ${s}.session_leases SET expires_at = clock_timestamp() + $3::float8 * interval '1 millisecond'
        WHERE session_id = $1 AND token = $2 AND expires_at > clock_timestamp()`,
      [sessionId, token, ttlMs],
    );
    return (result.rowCount ?? 0) > 0;
  };
  const beat = async (): Promise<void> => {
    if (beating || released || lost) return;
    beating = true;
    try {
      if (!(await extend())) markLost();
    } catch (error) {
      if (!released && !lost) report({ type: 'lease-renew-failed', sessionId, token, error });
    } finally {
      beating = false;
    }
  };

  const heartbeatMs = Math.max(1, context.lease.heartbeatMs ?? Math.floor(ttlMs / 3));
  const timer = setInterval(() => void beat(), heartbeatMs);
  timer.unref?.();
  context.heartbeats.add(stopHeartbeat);

  const own: Omit<SessionLease, 'released'> & { [RELEASED_READ]: () => boolean } = {
    [RELEASED_READ]: () => released,
    sessionId,
    token,
    async isHeld(options: StorageCallOptions = {}) {
      options.signal?.throwIfAborted();
      if (released || lost) return false;
      const change = await leaseChange(pool, s, lease, false);
      if (change !== undefined) markLost();
      return change === undefined;
    },
    async renew(options: StorageCallOptions = {}) {
      options.signal?.throwIfAborted();
      if (!released && (await extend())) return;
      const change: TranscriptChangeKind =
        (await leaseChange(pool, s, lease, false)) ?? 'lock-lost';
      markLost();
      throw new SessionTakeoverError({ sessionId, phase: 'fence_check', change });
    },
    async release() {
      if (released) return;
      letGo();
      await pool.query(releaseLeaseSql(s), [sessionId, token]);
    },
  };
  const lease = Object.setPrototypeOf(own, releasedProperty) as SessionLease;
  function letGo(): void {
    released = true;
    stopHeartbeat();
    if (context.liveLeases.get(sessionId) === lease) context.liveLeases.delete(sessionId);
  }
  issued.set(lease, { context, sessionId, token, letGo });
  context.liveLeases.set(sessionId, lease);
  return lease;
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new PostgresStoreError({ message: `${name} must be a positive number of ms` });
  }
  return Math.ceil(value);
}
