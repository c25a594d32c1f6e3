import type { BreakerChange, BreakerRow, WindowSlice } from '@keel/provider-health';
import type { BreakerState, ErrorKind, HealthEvent, HealthSnapshot, ModelTarget } from '@keel/spec';
import { inTransaction, type PostgresPool, toNumber } from './postgres-pool';

/** The breaker columns, in the order `breakerOf` reads them. */
const BREAKER_COLUMNS =
  'state, open_until, failed_probes, probe_until, window_starts, window_failures, window_successes';

/**
 * The SQL of provider health. Time is the database's (`clock_timestamp()` in ms) unless a test
 * clock gives it: each statement takes that clock's reading as a parameter, `NULL` meaning "ask
 * the database". A breaker's window is three parallel arrays on its row (slice start, failures,
 * successes), oldest slice first.
 */
export function createHealthQueries(schema: string, clockNow: () => number | null) {
  const breakers = `${schema}.health_breakers`;
  const cooldowns = `${schema}.health_cooldowns`;
  const now = (parameter: number) =>
    `coalesce($${parameter}::bigint, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint)`;

  return {
    /** The time, the longest live cooldown of the target's profile (and model), and its breaker. */
    async look(pool: PostgresPool, target: ModelTarget) {
      const { rows } = await pool.query(
        `WITH clock AS (SELECT ${now(4)} AS now)
          SELECT clock.now,
            (SELECT max(c.until_ms) FROM ${cooldowns} c
              WHERE c.provider_id = $1 AND c.profile_id = $2 AND c.model IN ('', $3)
                AND c.until_ms > clock.now) AS cooling_until,
            b.state, b.open_until, b.failed_probes, b.probe_until,
            b.window_starts, b.window_failures, b.window_successes
          FROM clock LEFT JOIN ${breakers} b ON b.provider_id = $1 AND b.model = $3`,
        [target.providerId, target.profileId, target.model, clockNow()],
      );
      const row = rows[0] ?? {};
      const cooling = row['cooling_until'];
      return {
        now: toNumber(row['now']),
        coolingUntil: cooling === null || cooling === undefined ? undefined : toNumber(cooling),
        breaker: breakerOf(row),
      };
    },

    /** Moves an open breaker whose cooldown elapsed to half-open; true for the one caller that did. */
    async halfOpen(pool: PostgresPool, target: ModelTarget, at: number): Promise<boolean> {
      const result = await pool.query(
        `UPDATE ${breakers} SET state = 'half-open', probe_until = 0
          WHERE provider_id = $1 AND model = $2 AND state = 'open' AND open_until <= $3`,
        [target.providerId, target.model, at],
      );
      return (result.rowCount ?? 0) > 0;
    },

    /**
     * Claims the half-open probe until `at + timeoutMs`. Callers racing for it queue on the row
     * lock; once the first commits, the others' condition is checked again against its row and
     * fails: exactly one caller wins.
     */
    async claimProbe(pool: PostgresPool, target: ModelTarget, at: number, timeoutMs: number) {
      const result = await pool.query(
        `UPDATE ${breakers} SET probe_until = $3::bigint + $4::bigint
          WHERE provider_id = $1 AND model = $2 AND state = 'half-open' AND probe_until <= $3`,
        [target.providerId, target.model, at, timeoutMs],
      );
      return (result.rowCount ?? 0) > 0;
    },

    async breaker(pool: PostgresPool, target: ModelTarget): Promise<BreakerRow | undefined> {
      const { rows } = await pool.query(
        `SELECT ${BREAKER_COLUMNS} FROM ${breakers} WHERE provider_id = $1 AND model = $2`,
        [target.providerId, target.model],
      );
      return breakerOf(rows[0] ?? {});
    },

    /**
     * A success outside a probe, in one statement: counted in the current slice of a closed
     * breaker's window (slices older than `windowMs` dropped), its row made if there was none.
     * The same as the rules' `countOutcome`, in SQL, so that the busiest report takes one round
     * trip and no transaction; a breaker that is not closed is left alone, as the rules leave it.
     */
    async countSuccess(
      pool: PostgresPool,
      target: ModelTarget,
      window: { sliceMs: number; windowMs: number },
    ): Promise<void> {
      await pool.query(
        `WITH clock AS (SELECT ${now(5)} AS now)
          INSERT INTO ${breakers} AS b
            (provider_id, model, state, window_starts, window_failures, window_successes)
          SELECT $1, $2, 'closed', ARRAY[(clock.now / $3::bigint) * $3::bigint], '{0}', '{1}'
            FROM clock
          ON CONFLICT (provider_id, model) DO UPDATE SET
            (window_starts, window_failures, window_successes) = (
              SELECT array_agg(w.start ORDER BY w.start), array_agg(w.failures ORDER BY w.start),
                array_agg(w.successes ORDER BY w.start)
              FROM (
                SELECT kept.start, sum(kept.failures)::integer AS failures,
                  sum(kept.successes)::integer AS successes
                FROM (
                  SELECT o.start, o.failures, o.successes
                    FROM unnest(b.window_starts, b.window_failures, b.window_successes)
                      AS o(start, failures, successes)
                    WHERE o.start > (SELECT clock.now FROM clock) - $4::float8
                  UNION ALL SELECT excluded.window_starts[1], 0, 1
                ) AS kept
                GROUP BY kept.start
              ) AS w)
            WHERE b.state = 'closed'`,
        [target.providerId, target.model, window.sliceMs, window.windowMs, clockNow()],
      );
    },

    /**
     * Locks the target's breaker row (creating it closed), applies `step` at the database's time,
     * writes it back; a transaction its process leaves idle `idleTimeoutMs` is ended by the server.
     */
    async changeBreaker(
      pool: PostgresPool,
      target: ModelTarget,
      options: { signal: AbortSignal | undefined; idleTimeoutMs: number },
      step: (row: BreakerRow, at: number) => BreakerChange[],
    ): Promise<HealthEvent[]> {
      const { signal, idleTimeoutMs } = options;
      return inTransaction(
        pool,
        signal,
        async (client) => {
          const key = [target.providerId, target.model];
          const lock = `SELECT ${BREAKER_COLUMNS} FROM ${breakers}
          WHERE provider_id = $1 AND model = $2 FOR UPDATE`;
          let { rows } = await client.query(lock, key);
          if (rows.length === 0) {
            await client.query(
              `INSERT INTO ${breakers} (provider_id, model, state) VALUES ($1, $2, 'closed')
              ON CONFLICT DO NOTHING`,
              key,
            );
            ({ rows } = await client.query(lock, key));
          }
          const row = breakerOf(rows[0] ?? {});
          if (row === undefined) return [];
          // The time is read once the row is locked, so that a wait for the lock is not lost.
          const clock = await client.query(`SELECT ${now(1)} AS now`, [clockNow()]);
          const before = JSON.stringify(row);
          const events = step(row, toNumber(clock.rows[0]?.['now']));
          if (JSON.stringify(row) !== before) {
            await client.query(
              `UPDATE ${breakers} SET state = $3, open_until = $4, failed_probes = $5,
              probe_until = $6, window_starts = $7::bigint[], window_failures = $8::integer[],
              window_successes = $9::integer[]
              WHERE provider_id = $1 AND model = $2`,
              [
                ...key,
                row.state,
                row.openUntil,
                row.failedProbes,
                row.probeUntil,
                row.window.map((slice) => slice.start),
                row.window.map((slice) => slice.failures),
                row.window.map((slice) => slice.successes),
              ],
            );
          }
          return events;
        },
        { idleTimeoutMs },
      );
    },

    /** Cools the profile (for `model`, or all its models) until now + `ms`, unless it already cools longer; the new end, or `undefined`. */
    async extendCooldown(
      pool: PostgresPool,
      target: ModelTarget,
      kind: ErrorKind,
      cooldown: { model: string | undefined; ms: number },
    ): Promise<number | undefined> {
      const { rows } = await pool.query(
        `WITH clock AS (SELECT ${now(6)} AS now)
          INSERT INTO ${cooldowns} AS c (provider_id, profile_id, model, kind, until_ms)
          SELECT $1, $2, $3, $4, clock.now + $5::bigint FROM clock
          ON CONFLICT (provider_id, profile_id, model)
            DO UPDATE SET kind = excluded.kind, until_ms = excluded.until_ms
            WHERE c.until_ms < excluded.until_ms
          RETURNING until_ms`,
        [
          target.providerId,
          target.profileId,
          cooldown.model ?? '',
          kind,
          Math.ceil(cooldown.ms),
          clockNow(),
        ],
      );
      const until = rows[0]?.['until_ms'];
      return until === undefined ? undefined : toNumber(until);
    },

    /** Every breaker, and the cooldowns still running (elapsed ones are deleted). */
    async snapshot(pool: PostgresPool): Promise<HealthSnapshot> {
      const time = clockNow();
      const [breakerRows, cooldownRows] = await Promise.all([
        pool.query(
          `WITH clock AS (SELECT ${now(1)} AS now)
            SELECT clock.now, b.provider_id, b.model, b.state, b.open_until, b.failed_probes
            FROM ${breakers} b, clock ORDER BY b.provider_id, b.model`,
          [time],
        ),
        pool.query(
          `WITH clock AS (SELECT ${now(1)} AS now),
            gone AS (DELETE FROM ${cooldowns} c USING clock WHERE c.until_ms <= clock.now)
            SELECT c.provider_id, c.profile_id, c.model, c.kind, c.until_ms
            FROM ${cooldowns} c, clock WHERE c.until_ms > clock.now
            ORDER BY c.provider_id, c.profile_id, c.model`,
          [time],
        ),
      ]);
      return {
        breakers: breakerRows.rows.map((row) => {
          const at = toNumber(row['now']);
          const openUntil = toNumber(row['open_until']);
          const open = row['state'] === 'open';
          return {
            providerId: String(row['provider_id']),
            model: String(row['model']),
            state: open && at >= openUntil ? 'half-open' : (row['state'] as BreakerState),
            ...(open && at < openUntil ? { openUntil } : {}),
            failedProbes: Number(row['failed_probes']),
          };
        }),
        cooldowns: cooldownRows.rows.map((row) => ({
          providerId: String(row['provider_id']),
          profileId: String(row['profile_id']),
          ...(row['model'] === '' ? {} : { model: String(row['model']) }),
          kind: row['kind'] as ErrorKind,
          until: toNumber(row['until_ms']),
        })),
      };
    },
  };
}

function breakerOf(row: Record<string, unknown>): BreakerRow | undefined {
  if (row['state'] === null || row['state'] === undefined) return undefined;
  const starts = numbers(row['window_starts']);
  const failures = numbers(row['window_failures']);
  const successes = numbers(row['window_successes']);
  const window: WindowSlice[] = starts.map((start, index) => ({
    start,
    failures: failures[index] ?? 0,
    successes: successes[index] ?? 0,
  }));
  return {
    state: row['state'] as BreakerState,
    openUntil: toNumber(row['open_until']),
    failedProbes: Number(row['failed_probes']),
    probeUntil: toNumber(row['probe_until']),
    window,
  };
}

function numbers(value: unknown): number[] {
  return ((value as unknown[] | null | undefined) ?? []).map(toNumber);
}
