/**
 * A `BudgetLedger` (`@keel/provider-health`) over PostgreSQL: every gateway on one database shares
 * one budget per key, so N gateways together respect one limit instead of N times it. Each call is
 * one round trip: a reservation is one call of the schema's `budget_reserve` function (the rules
 * under a per-key transaction lock, by the database's clock, paced `rpm` and `tpm` included), a
 * reconcile, cancel or record one statement.
 */
import {
  type BudgetDecision,
  type BudgetLedger,
  type BudgetLimitName,
  type BudgetRemaining,
  type BudgetReservation,
  type BudgetWindowOptions,
  budgetSliceMs,
  checkBudgetLimits,
  resolveBudgetWindows,
} from '@keel/provider-health';
import { type PostgresConnectionOptions, resolvePool, toNumber } from './postgres-pool';
import { createSchemaGate } from './schema-gate';

export type PostgresBudgetLedgerOptions = PostgresConnectionOptions &
  BudgetWindowOptions & {
    /** The PostgreSQL schema that holds the tables; default `keel`. */
    schema?: string;
    /** Migrate the schema on first use (default true). */
    migrate?: boolean;
    /**
     * Tests only: judge time by this clock instead of the database's `clock_timestamp()`. Every
     * gateway that shares the rows must use the same time source.
     */
    clock?: { now(): number };
  };

/** `BudgetLedger` over PostgreSQL rows, plus `close()`. */
export interface PostgresBudgetLedger extends BudgetLedger {
  /** Ends the pool if this ledger opened it (a given pool is left open). */
  close(): Promise<void>;
}

/** A budget ledger shared by every gateway on one database; windows are checked when it is made. */
export function createPostgresBudgetLedger(
  options: PostgresBudgetLedgerOptions,
): PostgresBudgetLedger {
  const windows = resolveBudgetWindows(options);
  const width = budgetSliceMs(windows);
  const { pool, owned } = resolvePool(options);
  const context = createSchemaGate({
    pool,
    schema: options.schema ?? 'keel',
    migrate: options.migrate ?? true,
  });
  const slices = `${context.schema}.budget_slices`;
  const clockNow = () => options.clock?.now() ?? null;
  const now = (parameter: number) =>
    `coalesce($${parameter}::bigint, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint)`;

  /**
   * Moves a reservation's slices by `requests` and `tokens`, and its paces (when it was paced) by
   * `paceMs` and `tokenPaceMs` — one statement.
   */
  async function adjust(
    reservation: BudgetReservation,
    change: { requests: number; tokens: number; paceMs?: number; tokenPaceMs?: number },
  ): Promise<void> {
    await context.ready(undefined);
    const values = [
      reservation.key,
      reservation.minuteStart,
      reservation.dayStart,
      change.requests,
      change.tokens,
    ];
    const update = `UPDATE ${slices} SET requests = greatest(0, requests + $4::integer),
          tokens = greatest(0, tokens + $5::bigint)
        WHERE key = $1 AND ((span = 'm' AND start_ms = $2) OR (span = 'd' AND start_ms = $3))`;
    if (change.paceMs === undefined && change.tokenPaceMs === undefined) {
      await pool.query(update, values);
      return;
    }
    // A paced reservation moves its paces in the same round trip.
    await pool.query(
      `WITH slices AS (${update})
        UPDATE ${context.schema}.budget_pace
          SET pace_at = pace_at - coalesce($6::double precision, 0),
            token_pace_at = token_pace_at + coalesce($7::double precision, 0)
        WHERE key = $1`,
      [...values, change.paceMs ?? null, change.tokenPaceMs ?? null],
    );
  }

  return {
    async reserve(key, limits, tokens): Promise<BudgetDecision> {
      checkBudgetLimits(limits);
      await context.ready(undefined);
      const need = Math.max(0, Math.ceil(tokens));
      const { rows } = await pool.query(
        `SELECT * FROM ${context.schema}.budget_reserve($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          key,
          limits.rpm ?? null,
          limits.tpm ?? null,
          limits.tpd ?? null,
          need,
          windows.minuteMs,
          windows.dayMs,
          clockNow(),
          limits.burst ?? null,
          limits.tpmBurst ?? null,
        ],
      );
      const row = rows[0] ?? {};
      const limit = row['limit_name'];
      if (typeof limit === 'string') {
        return {
          granted: false,
          limit: limit as BudgetLimitName,
          waitMs: toNumber(row['wait_ms']),
        };
      }
      const reservation: BudgetReservation = {
        key,
        tokens: need,
        minuteStart: toNumber(row['minute_start']),
        dayStart: toNumber(row['day_start']),
      };
      // Paced, the grant moved the key's pace on by a minute / rpm (the function's own step).
      if (limits.rpm !== undefined && limits.burst !== undefined) {
        reservation.paceMs = windows.minuteMs / limits.rpm;
      }
      if (limits.tpm !== undefined && limits.tpmBurst !== undefined) {
        reservation.tokenMs = windows.minuteMs / limits.tpm;
      }
      return { granted: true, reservation };
    },

    async reconcile(reservation, usedTokens) {
      const delta = Math.max(0, Math.ceil(usedTokens)) - reservation.tokens;
      if (delta === 0) return;
      const { tokenMs } = reservation;
      await adjust(reservation, {
        requests: 0,
        tokens: delta,
        ...(tokenMs === undefined ? {} : { tokenPaceMs: delta * tokenMs }),
      });
    },

    async cancel(reservation) {
      const { paceMs, tokenMs } = reservation;
      await adjust(reservation, {
        requests: -1,
        tokens: -reservation.tokens,
        ...(paceMs === undefined ? {} : { paceMs }),
        ...(tokenMs === undefined ? {} : { tokenPaceMs: -(reservation.tokens * tokenMs) }),
      });
    },

    async record(key, limits, usedTokens) {
      const tokens = Math.max(0, Math.ceil(usedTokens));
      if (tokens === 0) return;
      await context.ready(undefined);
      const paced = limits.tpm !== undefined && limits.tpmBurst !== undefined;
      // One statement by one clock reading: the tokens into the current minute and day slices (no
      // request), and, paced, the key's token pace on by them (as a grant of that size would).
      await pool.query(
        `WITH clock AS (SELECT ${now(2)} AS now),
          added AS (
            INSERT INTO ${slices} AS b (key, span, start_ms, requests, tokens)
              SELECT $1, span, (clock.now / width) * width, 0, $3::bigint
                FROM clock, (VALUES ('m', $4::bigint), ('d', $5::bigint)) AS spans (span, width)
              ON CONFLICT (key, span, start_ms) DO UPDATE SET tokens = b.tokens + excluded.tokens)
          INSERT INTO ${context.schema}.budget_pace AS p (key, pace_at, token_pace_at)
            SELECT $1, NULL, clock.now + $3::bigint * $6::double precision
              FROM clock WHERE $6::double precision IS NOT NULL
            ON CONFLICT (key) DO UPDATE SET token_pace_at =
              greatest(p.token_pace_at, (SELECT now FROM clock)) + $3::bigint * $6::double precision`,
        [
          key,
          clockNow(),
          tokens,
          width.minute,
          width.day,
          paced ? windows.minuteMs / (limits.tpm as number) : null,
        ],
      );
    },

    async remaining(key, limits): Promise<BudgetRemaining> {
      await context.ready(undefined);
      const { rows } = await pool.query(
        `WITH clock AS (SELECT ${now(2)} AS now)
          SELECT
            coalesce(sum(requests) FILTER (WHERE span = 'm'), 0) AS minute_requests,
            coalesce(sum(tokens) FILTER (WHERE span = 'm'), 0) AS minute_tokens,
            coalesce(sum(tokens) FILTER (WHERE span = 'd'), 0) AS day_tokens
          FROM ${slices}, clock
          WHERE key = $1 AND (
            (span = 'm' AND start_ms + $3::bigint + $4::bigint > clock.now) OR
            (span = 'd' AND start_ms + $5::bigint + $6::bigint > clock.now))`,
        [key, clockNow(), width.minute, windows.minuteMs, width.day, windows.dayMs],
      );
      const row = rows[0] ?? {};
      const left = (limit: number, used: unknown) => Math.max(0, limit - toNumber(used ?? 0));
      const remaining: BudgetRemaining = {};
      if (limits.rpm !== undefined) remaining.rpm = left(limits.rpm, row['minute_requests']);
      if (limits.tpm !== undefined) remaining.tpm = left(limits.tpm, row['minute_tokens']);
      if (limits.tpd !== undefined) remaining.tpd = left(limits.tpd, row['day_tokens']);
      return remaining;
    },

    async close() {
      if (context.closed) return;
      context.closed = true;
      if (owned) await pool.end();
    },
  };
}
