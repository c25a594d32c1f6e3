import type { TestDatabase } from '@keel/postgres-test-server';
import {
  createPostgresSessionStorage,
  type PostgresSessionStorage,
} from '@keel/session-store-postgres';
import type { TranscriptEntry } from '@keel/spec';

/** A session lease row as the gateways left it. */
export interface LeaseRow {
  sessionId: string;
  token: bigint;
  holder: string;
  /** Not expired, by the database's clock. */
  live: boolean;
  /** Until it expires, by the database's clock (at most the lease's ttl while it is renewed). */
  remainingMs: number;
}

/** Every session lease row of the database (a lease is deleted when released). */
export async function leaseRows(database: TestDatabase): Promise<LeaseRow[]> {
  const { rows } = await database.query(
    `SELECT session_id, token::text AS token, holder, expires_at > clock_timestamp() AS live,
        extract(epoch FROM (expires_at - clock_timestamp())) * 1000 AS remaining_ms
      FROM keel.session_leases ORDER BY session_id`,
  );
  return rows.map((row) => ({
    sessionId: String(row['session_id']),
    token: BigInt(String(row['token'])),
    holder: String(row['holder']),
    live: row['live'] === true,
    remainingMs: Number(row['remaining_ms']),
  }));
}

/** The last fencing token issued for a session (it only grows). */
export async function fencingToken(database: TestDatabase, sessionId: string): Promise<bigint> {
  const { rows } = await database.query(
    'SELECT token::text AS token FROM keel.session_fences WHERE session_id = $1',
    [sessionId],
  );
  return BigInt(String(rows[0]?.['token'] ?? '0'));
}

/** Reads transcripts straight from the database, as any gateway would. */
export function transcriptReader(database: TestDatabase): PostgresSessionStorage {
  return createPostgresSessionStorage({ pool: database.pool({ max: 4 }), migrate: false });
}

/** A session's entries, every one parsed (a stored line that cannot be used fails the test). */
export async function transcriptOf(
  reader: PostgresSessionStorage,
  sessionId: string,
): Promise<TranscriptEntry[]> {
  const read = await reader.read(sessionId);
  if (read.issues.length > 0) {
    throw new Error(`${sessionId}: unusable entries ${JSON.stringify(read.issues)}`);
  }
  return [...read.entries];
}
