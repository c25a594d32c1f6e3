/**
 * Client keys' records over the real PostgreSQL: across pools (as across gateways) a session's
 * first claim wins for good, even when claims race; spend adds up from every pool per period; an
 * unreachable database is a `StorageError`.
 */
import { useTestDatabase } from '@keel/postgres-test-server';
import { describe, expect, it } from 'vitest';
import { createPostgresKeyRecords, type PostgresKeyRecords } from './pg-key-records';
import { StorageError } from './postgres-store-error';

const database = useTestDatabase();
let schemas = 0;

/** Two record sets over two pools on one schema: two gateways. */
function twoGateways(): [PostgresKeyRecords, PostgresKeyRecords] {
  schemas += 1;
  const schema = `key_records_${schemas}`;
  return [
    createPostgresKeyRecords({ pool: database.pool({ max: 4 }), schema }),
    createPostgresKeyRecords({ pool: database.pool({ max: 4 }), schema }),
  ];
}

describe('session owners', () => {
  it('belong to the first key that claims them, seen from every pool', async () => {
    const [one, two] = twoGateways();
    expect(await one.ownerOf('s-1')).toBeUndefined();
    expect(await one.claimOwner('s-1', 'app-a')).toBe('app-a');
    expect(await two.ownerOf('s-1')).toBe('app-a');
    expect(await two.claimOwner('s-1', 'app-b')).toBe('app-a');
    expect(await one.claimOwner('s-1', 'app-a')).toBe('app-a');
    expect(await two.claimOwner('s-2', 'app-b')).toBe('app-b');
    expect(await one.ownerOf('s-2')).toBe('app-b');
  });

  it('have one winner when claims race, and every claimant is told the same one', async () => {
    const [one, two] = twoGateways();
    await one.ownerOf('warm-up');
    for (let round = 0; round < 20; round += 1) {
      const sessionId = `race-${round}`;
      const answers = await Promise.all(
        ['a', 'b', 'c', 'd'].map((key, index) =>
          (index % 2 === 0 ? one : two).claimOwner(sessionId, key),
        ),
      );
      expect(new Set(answers).size).toBe(1);
      expect(await two.ownerOf(sessionId)).toBe(answers[0]);
    }
  });
});

describe('spend', () => {
  it('adds up per key and period from every pool', async () => {
    const [one, two] = twoGateways();
    const periods = ['2026-12-01', '2026-12'];
    expect(await one.spendOf('app', periods)).toEqual({ '2026-12-01': 0, '2026-12': 0 });
    await one.addSpend('app', periods, 0.25);
    await two.addSpend('app', periods, 0.5);
    await Promise.all([one.addSpend('app', periods, 1), two.addSpend('app', periods, 1)]);
    await two.addSpend('app', ['2026-12-02', '2026-12'], 0.125);
    await one.addSpend('other', periods, 9);
    await one.addSpend('app', periods, 0);
    await one.addSpend('app', periods, -3);
    expect(await two.spendOf('app', periods)).toEqual({ '2026-12-01': 2.75, '2026-12': 2.875 });
    expect(await one.spendOf('app', ['2026-12-02'])).toEqual({ '2026-12-02': 0.125 });
    expect(await one.spendOf('app', ['2026-11'])).toEqual({ '2026-11': 0 });
  });
});

describe('current spend', () => {
  it("adds to the database clock's UTC day and month, from every pool", async () => {
    const [one, two] = twoGateways();
    const { rows } = await database
      .pool({ max: 1 })
      .query(
        "SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM') AS month",
      );
    const { day, month } = rows[0] as { day: string; month: string };
    expect(await one.currentSpend('app')).toEqual({
      day: { period: day, usd: 0 },
      month: { period: month, usd: 0 },
    });
    await Promise.all([one.addCurrentSpend('app', 0.5), two.addCurrentSpend('app', 0.25)]);
    await one.addCurrentSpend('app', 0);
    await one.addCurrentSpend('other', 4);
    // A period named by the caller is the same row.
    await two.addSpend('app', [month], 1);
    expect(await two.currentSpend('app')).toEqual({
      day: { period: day, usd: 0.75 },
      month: { period: month, usd: 1.75 },
    });
    expect(await one.spendOf('app', [day])).toEqual({ [day]: 0.75 });
  });
});

describe('sessions of a key', () => {
  it("are every session it claimed on any pool, and no other key's", async () => {
    const [one, two] = twoGateways();
    expect(await one.sessionsOf('app-a')).toEqual([]);
    await one.claimOwner('a-1', 'app-a');
    await two.claimOwner('a-2', 'app-a');
    await two.claimOwner('b-1', 'app-b');
    await two.claimOwner('a-1', 'app-b');
    expect((await two.sessionsOf('app-a')).sort()).toEqual(['a-1', 'a-2']);
    expect(await one.sessionsOf('app-b')).toEqual(['b-1']);
  });

  it('are found by an index on the key, not a scan of every owner', async () => {
    const [one] = twoGateways();
    await one.claimOwner('first', 'app-a'); // the migration
    const schema = `key_records_${schemas}`;
    await database.query(
      `INSERT INTO ${schema}.key_session_owners (session_id, key_id)
        SELECT 's-' || n, 'key-' || (n % 500) FROM generate_series(1, 20000) AS n`,
    );
    await database.query(`ANALYZE ${schema}.key_session_owners`);
    const { rows } = await database.query(
      `EXPLAIN SELECT session_id FROM ${schema}.key_session_owners WHERE key_id = 'key-7'`,
    );
    const plan = rows.map((row) => String(row['QUERY PLAN'])).join('\n');
    expect(plan).toContain('key_session_owners_by_key');
    expect((await one.sessionsOf('key-7')).length).toBe(40);
  });
});

describe('a failing database', () => {
  it('is a StorageError naming the operation', async () => {
    const pool = database.pool({ max: 1 });
    const records = createPostgresKeyRecords({ pool, schema: 'key_records_gone' });
    await records.ownerOf('x');
    await pool.end();
    const refused = await records.claimOwner('x', 'app').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StorageError);
    expect(refused).toMatchObject({ operation: 'claim session owner', sessionId: 'x' });
    await expect(records.spendOf('app', ['2026-12'])).rejects.toBeInstanceOf(StorageError);
  });
});
