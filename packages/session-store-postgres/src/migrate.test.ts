import { useTestDatabase } from '@keel/postgres-test-server';
import { describe, expect, it } from 'vitest';
import { migrate, migratePool } from './migrate';
import { createPostgresSessionStorage } from './postgres-session-storage';
import { PostgresStoreError } from './postgres-store-error';
import { SCHEMA_VERSION } from './schema-migrations';

const database = useTestDatabase();

async function tablesOf(schema: string): Promise<string[]> {
  const { rows } = await database.query(
    'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
    [schema],
  );
  return rows.map((row) => row.table_name as string);
}

async function versionsOf(schema: string): Promise<number[]> {
  const { rows } = await database.query(
    `SELECT version FROM ${schema}.schema_migrations ORDER BY version`,
  );
  return rows.map((row) => Number(row.version));
}

describe('migrate', () => {
  it('creates the schema once; a second run finds nothing to do', async () => {
    const first = await migrate({ connectionString: database.url, schema: 'm_once' });
    expect(first).toEqual({ schema: 'm_once', from: 0, to: SCHEMA_VERSION });
    expect(await migrate({ pool: database.pool(), schema: 'm_once' })).toEqual({
      schema: 'm_once',
      from: SCHEMA_VERSION,
      to: SCHEMA_VERSION,
    });
    expect(await tablesOf('m_once')).toEqual([
      'budget_pace',
      'budget_slices',
      'health_breakers',
      'health_cooldowns',
      'key_session_owners',
      'key_spend',
      'queued_appends',
      'schema_migrations',
      'session_fences',
      'session_leases',
      'transcript_entries',
      'transcripts',
      'turn_claims',
    ]);
    expect(await versionsOf('m_once')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('brings an older schema up to date, one version at a time', async () => {
    const pool = database.pool();
    expect(await migratePool(pool, 'm_older', undefined, 1)).toMatchObject({ from: 0, to: 1 });
    expect(await tablesOf('m_older')).not.toContain('health_breakers');
    expect(await migratePool(pool, 'm_older', undefined)).toMatchObject({ from: 1, to: 9 });
    expect(await tablesOf('m_older')).toContain('health_breakers');
    expect(await versionsOf('m_older')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('is safe when several processes start at once: each version is applied exactly once', async () => {
    const pools = Array.from({ length: 8 }, () => database.pool({ max: 1 }));
    const results = await Promise.all(
      pools.map((pool) => migrate({ pool, schema: 'm_concurrent' })),
    );
    expect(results.filter((result) => result.from === 0)).toHaveLength(1);
    expect(results.every((result) => result.to === SCHEMA_VERSION)).toBe(true);
    expect(await versionsOf('m_concurrent')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('refuses a schema newer than this package knows, and writes nothing', async () => {
    await migrate({ pool: database.pool(), schema: 'm_newer' });
    await database.query(
      `INSERT INTO m_newer.schema_migrations (version, description) VALUES (99, 'from the future')`,
    );
    const refused = await migrate({ pool: database.pool(), schema: 'm_newer' }).catch(
      (error: unknown) => error,
    );
    expect(PostgresStoreError.isInstance(refused)).toBe(true);
    expect(String(refused)).toMatch(/version 99, newer than/);
  });

  it('rejects a schema name that is not a plain identifier, before touching the database', async () => {
    await expect(migrate({ pool: database.pool(), schema: 'bad"; DROP' })).rejects.toThrow(
      /Invalid schema name/,
    );
  });

  it('a store migrates on first use, and a store told not to leaves a fresh schema alone', async () => {
    const manual = createPostgresSessionStorage({
      pool: database.pool(),
      schema: 'm_manual',
      migrate: false,
    });
    await expect(manual.list()).rejects.toThrow(/does not exist/);
    expect(await manual.migrate()).toMatchObject({ from: 0 });
    expect(await manual.list()).toEqual([]);

    const automatic = createPostgresSessionStorage({ pool: database.pool(), schema: 'm_auto' });
    expect(await automatic.list()).toEqual([]);
    expect(await versionsOf('m_auto')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
