import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';

/** A database of its own for one test file, on the run's server. */
export interface TestDatabase {
  /** Its connection string (set once the file's `beforeAll` ran). */
  readonly url: string;
  readonly name: string;
  /** A new pool on it (one per simulated gateway); every pool is ended after the file. */
  pool(options?: { max?: number; applicationName?: string }): pg.Pool;
  /** Runs one statement as the superuser on this database. */
  query(text: string, values?: unknown[]): Promise<pg.QueryResult>;
}

/**
 * Registers `beforeAll` / `afterAll` hooks that create a fresh database for the calling test file
 * and drop it (closing its pools first) afterwards.
 */
export function useTestDatabase(): TestDatabase {
  const name = `keel_test_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const pools: pg.Pool[] = [];
  let url = '';
  let admin: pg.Pool | undefined;
  const database: TestDatabase = {
    get url() {
      return url;
    },
    name,
    pool(options = {}) {
      const pool = new pg.Pool({
        connectionString: url,
        max: options.max ?? 10,
        ...(options.applicationName === undefined
          ? {}
          : { application_name: options.applicationName }),
      });
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
    const adminUrl = inject('postgresAdminUrl');
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${name}`);
    } finally {
      await client.end();
    }
    const parsed = new URL(adminUrl);
    parsed.pathname = `/${name}`;
    url = parsed.toString();
  });
  afterAll(async () => {
    await Promise.allSettled(pools.map((pool) => pool.end()));
    const client = new pg.Client({ connectionString: inject('postgresAdminUrl') });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  });
  return database;
}
