import type {
  ClaimTurnOptions,
  ClaimTurnResult,
  SessionTurnClaims,
  StorageCallOptions,
  TurnClaim,
  TurnClaimHolder,
} from '@keel/spec';
import { abortable } from './abortable';
import type { PostgresPool } from './postgres-pool';
import { createPostgresQueuedAppends } from './postgres-queued-appends';
import {
  assertValidSessionId,
  PostgresStoreError,
  SessionTakeoverError,
} from './postgres-store-error';
import { RELEASED_READ, releasedProperty } from './released-property';
import { notifySql, type SessionListener } from './session-notifications';
import { asStorageCall } from './storage-failure';
import type { StoreContext } from './store-context';

/** What the claims of one store share with it. */
export interface TurnClaimsContext {
  /** The store's context (its schema gate: migrated before the first call, closed with it). */
  gate: StoreContext;
  pool: PostgresPool;
  /** The default ttl of a claim (the store's lease ttl). */
  defaultTtlMs: number;
  /** Wakes this store's waiters when another gateway announces a change of their session. */
  listener: SessionListener;
}

/**
 * The turn claims in PostgreSQL: one row per session in `turn_claims`, never deleted. A claim is
 * one statement: an upsert that takes the row only when its claim has expired (by the database's
 * clock) and bumps the token; otherwise the live holder is read. A heartbeat extends only a live
 * claim with the same token; a release ends it (its expiry set to now), the token kept. A granted
 * claim prunes the session's `queued_appends` rows (the new turn reads the transcript after them).
 */
export function createPostgresTurnClaims(context: TurnClaimsContext): SessionTurnClaims {
  const { pool } = context;

  async function currentTurn(
    sessionId: string,
    options: StorageCallOptions = {},
  ): Promise<TurnClaimHolder | undefined> {
    assertValidSessionId(sessionId);
    await context.gate.ready(options.signal);
    const { rows } = await abortable(
      pool.query(
        `SELECT owner, turn_id, token::text AS token FROM ${context.gate.schema}.turn_claims
          WHERE session_id = $1 AND expires_at > clock_timestamp()`,
        [sessionId],
      ),
      options.signal,
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    return {
      owner: String(row['owner']),
      turnId: String(row['turn_id']),
      token: String(row['token']),
    };
  }

  async function claimTurn(sessionId: string, options: ClaimTurnOptions): Promise<ClaimTurnResult> {
    assertValidSessionId(sessionId);
    const ttlMs = options.ttlMs ?? context.defaultTtlMs;
    if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
      throw new PostgresStoreError({ message: 'ttlMs must be a positive number of ms' });
    }
    await context.gate.ready(options.signal);
    for (;;) {
      // Not abandoned half-way on abort: a claim granted as the caller gave up is released below.
      // A granted claim also prunes the session's queued appends: history to the new turn, which
      // reads the transcript after this (and a frozen earlier holder's writes are refused anyway).
      const { rows } = await pool.query(
        `WITH granted AS (
            INSERT INTO ${context.gate.schema}.turn_claims AS c
              (session_id, token, owner, turn_id, claimed_at, expires_at)
            VALUES ($1, 1, $2, $3, clock_timestamp(),
              clock_timestamp() + $4::float8 * interval '1 millisecond')
            ON CONFLICT (session_id) DO UPDATE SET token = c.token + 1, owner = excluded.owner,
              turn_id = excluded.turn_id, claimed_at = excluded.claimed_at,
              expires_at = excluded.expires_at
              WHERE c.expires_at <= clock_timestamp()
            RETURNING c.token),
          pruned AS (
            DELETE FROM ${context.gate.schema}.queued_appends
              WHERE session_id = $1 AND EXISTS (SELECT 1 FROM granted))
          SELECT token::text AS token FROM granted`,
        [sessionId, options.owner, options.turnId, Math.ceil(ttlMs)],
      );
      const granted = rows[0];
      if (granted !== undefined) {
        const holder = {
          owner: options.owner,
          turnId: options.turnId,
          token: String(granted['token']),
        };
        const claim = createClaim(sessionId, holder, Math.ceil(ttlMs));
        if (options.signal?.aborted) {
          await claim.release();
          throw options.signal.reason;
        }
        return { claimed: true, claim };
      }
      const holder = await currentTurn(sessionId, options);
      // The holder released or expired in between: one more try.
      if (holder !== undefined) return { claimed: false, holder };
    }
  }

  function createClaim(sessionId: string, holder: TurnClaimHolder, ttlMs: number): TurnClaim {
    let released = false;
    const s = context.gate.schema;

    /** Why this claim no longer holds: a newer claim was made, or it ended or expired. */
    async function lost(): Promise<'stale-token' | 'lock-lost'> {
      const { rows } = await pool.query(
        `SELECT token::text AS token FROM ${s}.turn_claims WHERE session_id = $1`,
        [sessionId],
      );
      const current = rows[0]?.['token'];
      return current !== undefined && BigInt(String(current)) > BigInt(holder.token)
        ? 'stale-token'
        : 'lock-lost';
    }

    const claim: Omit<TurnClaim, 'released'> & { [RELEASED_READ]: () => boolean } = {
      [RELEASED_READ]: () => released,
      sessionId,
      ...holder,
      isHeld: (options: StorageCallOptions = {}) =>
        asStorageCall('claim.isHeld', sessionId, options.signal, () => isHeld(options)),
      heartbeat: (options: StorageCallOptions = {}) =>
        asStorageCall('claim.heartbeat', sessionId, options.signal, () => heartbeat(options)),
      release: () => asStorageCall('claim.release', sessionId, undefined, release),
    };
    // `released` comes from the prototype (see `releasedProperty`).
    return Object.setPrototypeOf(claim, releasedProperty) as TurnClaim;

    async function isHeld(options: StorageCallOptions) {
      if (released) return false;
      const { rows } = await abortable(
        pool.query(
          `SELECT 1 FROM ${s}.turn_claims
              WHERE session_id = $1 AND token = $2 AND expires_at > clock_timestamp()`,
          [sessionId, holder.token],
        ),
        options.signal,
      );
      return rows.length > 0;
    }

    async function heartbeat(options: StorageCallOptions) {
      options.signal?.throwIfAborted();
      if (!released) {
        const result = await abortable(
          pool.query(
            `UPDATE ${s}.turn_claims
                SET expires_at = clock_timestamp() + $3::float8 * interval '1 millisecond'
                WHERE session_id = $1 AND token = $2 AND expires_at > clock_timestamp()`,
            [sessionId, holder.token, ttlMs],
          ),
          options.signal,
        );
        if ((result.rowCount ?? 0) > 0) return;
      }
      throw new SessionTakeoverError({ sessionId, phase: 'fence_check', change: await lost() });
    }

    async function release() {
      if (released) return;
      released = true;
      // The gateways waiting for this session's turn to end look again at once: the release
      // and its announcement are one statement (one round trip, sent on its commit).
      await pool.query(
        `WITH ended AS (
            UPDATE ${s}.turn_claims SET expires_at = clock_timestamp()
              WHERE session_id = $1 AND token = $2 AND expires_at > clock_timestamp()
              RETURNING session_id)
          ${notifySql(s)} FROM ended`,
        [sessionId, holder.token],
      );
    }
  }

  const queued = createPostgresQueuedAppends(context.gate);
  // The database's failures reach the caller as `StorageError`s, as every other call's do.
  return {
    claimTurn: (sessionId, options) =>
      asStorageCall('claimTurn', sessionId, options.signal, () => claimTurn(sessionId, options)),
    currentTurn: (sessionId, options = {}) =>
      asStorageCall('currentTurn', sessionId, options.signal, () =>
        currentTurn(sessionId, options),
      ),
    appendQueued: (sessionId, entries, options = {}) =>
      asStorageCall('appendQueued', sessionId, options.signal, () =>
        queued.appendQueued(sessionId, entries, options),
      ),
    queuedSince: (sessionId, expected, options = {}) =>
      asStorageCall('queuedSince', sessionId, options.signal, () =>
        queued.queuedSince(sessionId, expected, options),
      ),
    waitForChange: (sessionId, options) => {
      assertValidSessionId(sessionId);
      return context.listener.waitForChange(sessionId, options);
    },
  };
}
