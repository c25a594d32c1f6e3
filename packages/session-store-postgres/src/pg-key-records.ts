/**
 * Client keys' records shared by every gateway on one database: which key owns each session (the
 * first claim wins, for good) and what each key spent in each period (a UTC day `YYYY-MM-DD` or
 * month `YYYY-MM`, named by the caller). A claim is one round trip unless it loses a race to a
 * claim committed while it ran (then one more read); adding spend is one atomic upsert.
 */
import { type PostgresConnectionOptions, resolvePool } from './postgres-pool';
import { createSchemaGate } from './schema-gate';
import { asStorageCall } from './storage-failure';

export type PostgresKeyRecordsOptions = PostgresConnectionOptions & {
  /** The PostgreSQL schema that holds the tables; default `keel`. */
  schema?: string;
  /** Migrate the schema on first use (default true). */
  migrate?: boolean;
};

export interface PostgresKeyRecords {
  /**
   * Makes `keyId` the session's owner unless a key owns it already; resolves the owner afterwards
   * (`keyId` when this claim won).
   */
  claimOwner(sessionId: string, keyId: string): Promise<string>;
  /** The key that owns the session, if any claimed it. */
  ownerOf(sessionId: string): Promise<string | undefined>;
  /** Adds `usd` to the key's total in each of `periods` (nothing for `usd` ≤ 0). */
  addSpend(keyId: string, periods: readonly string[], usd: number): Promise<void>;
  /** The key's total in each of `periods` (0 where it spent nothing). */
  spendOf(keyId: string, periods: readonly string[]): Promise<Record<string, number>>;
  /**
   * Adds `usd` to the key's total in the current UTC day and month by the database's clock (so
   * every gateway agrees when a period ends, whatever its own clock says); nothing for `usd` ≤ 0.
   */
  addCurrentSpend(keyId: string, usd: number): Promise<void>;
  /** The key's total in the current UTC day and month by the database's clock, with their names. */
  currentSpend(keyId: string): Promise<CurrentSpend>;
  /** Every session the key owns (in no particular order). */
  sessionsOf(keyId: string): Promise<string[]>;
  /** Ends the pool if these records opened it (a given pool is left open). */
  close(): Promise<void>;
}

/** A key's spend in the current periods: `period` is `YYYY-MM-DD` (day) or `YYYY-MM` (month). */
export interface CurrentSpend {
  day: { period: string; usd: number };
  month: { period: string; usd: number };
}

/** The current UTC day and month by the database's clock, read once (one instant for both). */
const CURRENT_PERIODS = `SELECT to_char(t, 'YYYY-MM-DD') AS day, to_char(t, 'YYYY-MM') AS month
  FROM (SELECT clock_timestamp() AT TIME ZONE 'UTC' AS t) AS now`;

export function createPostgresKeyRecords(options: PostgresKeyRecordsOptions): PostgresKeyRecords {
  const { pool, owned } = resolvePool(options);
  const context = createSchemaGate({
    pool,
    schema: options.schema ?? 'keel',
    migrate: options.migrate ?? true,
  });
  const owners = `${context.schema}.key_session_owners`;
  const spend = `${context.schema}.key_spend`;

  const readOwner = async (sessionId: string): Promise<string | undefined> => {
    const { rows } = await pool.query(`SELECT key_id FROM ${owners} WHERE session_id = $1`, [
      sessionId,
    ]);
    const key = rows[0]?.['key_id'];
    return typeof key === 'string' ? key : undefined;
  };

  return {
    claimOwner: (sessionId, keyId) =>
      asStorageCall('claim session owner', sessionId, undefined, async () => {
        await context.ready(undefined);
        const { rows } = await pool.query(
          `WITH claimed AS (
             INSERT INTO ${owners} (session_id, key_id) VALUES ($1, $2)
               ON CONFLICT (session_id) DO NOTHING RETURNING key_id)
           SELECT key_id FROM claimed
           UNION ALL SELECT key_id FROM ${owners} WHERE session_id = $1
           LIMIT 1`,
          [sessionId, keyId],
        );
        const key = rows[0]?.['key_id'];
        if (typeof key === 'string') return key;
        // The winning claim committed after this statement's snapshot: read it now.
        const owner = await readOwner(sessionId);
        if (owner === undefined) throw new Error(`No owner recorded for session ${sessionId}`);
        return owner;
      }),
    ownerOf: (sessionId) =>
      asStorageCall('read session owner', sessionId, undefined, async () => {
        await context.ready(undefined);
        return readOwner(sessionId);
      }),
    addSpend: (keyId, periods, usd) =>
      asStorageCall('add key spend', undefined, undefined, async () => {
        if (!(usd > 0) || periods.length === 0) return;
        await context.ready(undefined);
        await pool.query(
          `INSERT INTO ${spend} AS s (key_id, period, usd)
             SELECT $1, period, $3::double precision FROM unnest($2::text[]) AS period
           ON CONFLICT (key_id, period) DO UPDATE SET usd = s.usd + excluded.usd`,
          [keyId, [...periods], usd],
        );
      }),
    spendOf: (keyId, periods) =>
      asStorageCall('read key spend', undefined, undefined, async () => {
        await context.ready(undefined);
        const { rows } = await pool.query(
          `SELECT period, usd FROM ${spend} WHERE key_id = $1 AND period = ANY($2::text[])`,
          [keyId, [...periods]],
        );
        const totals: Record<string, number> = Object.fromEntries(periods.map((p) => [p, 0]));
        for (const row of rows) totals[String(row['period'])] = Number(row['usd']);
        return totals;
      }),
    addCurrentSpend: (keyId, usd) =>
      asStorageCall('add key spend', undefined, undefined, async () => {
        if (!(usd > 0)) return;
        await context.ready(undefined);
        await pool.query(
          `INSERT INTO ${spend} AS s (key_id, period, usd)
             SELECT $1, period, $2::double precision
               FROM (${CURRENT_PERIODS}) AS p, unnest(ARRAY[p.day, p.month]) AS period
           ON CONFLICT (key_id, period) DO UPDATE SET usd = s.usd + excluded.usd`,
          [keyId, usd],
        );
      }),
    currentSpend: (keyId) =>
      asStorageCall('read key spend', undefined, undefined, async () => {
        await context.ready(undefined);
        const { rows } = await pool.query(
          `SELECT p.day, p.month,
              coalesce((SELECT usd FROM ${spend} WHERE key_id = $1 AND period = p.day), 0) AS day_usd,
              coalesce((SELECT usd FROM ${spend} WHERE key_id = $1 AND period = p.month), 0) AS month_usd
            FROM (${CURRENT_PERIODS}) AS p`,
          [keyId],
        );
        const row = rows[0] ?? {};
        return {
          day: { period: String(row['day']), usd: Number(row['day_usd']) },
          month: { period: String(row['month']), usd: Number(row['month_usd']) },
        };
      }),
    sessionsOf: (keyId) =>
      asStorageCall('list sessions of a key', undefined, undefined, async () => {
        await context.ready(undefined);
        const { rows } = await pool.query(`SELECT session_id FROM ${owners} WHERE key_id = $1`, [
          keyId,
        ]);
        return rows.map((row) => String(row['session_id']));
      }),
    async close() {
      if (context.closed) return;
      context.closed = true;
      if (owned) await pool.end();
    },
  };
}
