import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { type CreatedDatabase, createDatabase } from './create-database';
import './provide-postgres';

/** A database of its own for one test file, on the run's server (see `providePostgres`). */
export interface TestDatabase {
  /** Its connection string (set once the file's `beforeAll` ran). */
  readonly url: string;
  /** A new pool on it (one per simulated gateway); every pool is ended after the file. */
  pool(options?: { max?: number }): pg.Pool;
  /** Runs SQL as the superuser on this database. */
  query(text: string, values?: unknown[]): Promise<pg.QueryResult>;
}

/**
 * Registers `beforeAll` / `afterAll` hooks that create a fresh database for the calling test file
 * and drop it (ending its pools first) afterwards.
 */
export function useTestDatabase(): TestDatabase {
  const pools: pg.Pool[] = [];
  let created: CreatedDatabase | undefined;
  let admin: pg.Pool | undefined;
  const database: TestDatabase = {
    get url() {
      if (created === undefined) throw new Error('The test database is made in beforeAll');
      return created.url;
    },
    pool(options = {}) {
      const pool = new pg.Pool({ connectionString: database.url, max: options.max ?? 10 });
      pool.on('error', () => {});
      pools.push(pool);
      return pool;
    },
    query(text, values) {
      admin ??= database.pool({ max: 2 });
      return admin.query(text, values);
    },
  };
  beforeAll(async () => {
    created = await createDatabase(inject('postgresAdminUrl'));
  });
  afterAll(async () => {
    await Promise.allSettled(pools.map((pool) => pool.end()));
    await created?.drop();
  });
  return database;
}
