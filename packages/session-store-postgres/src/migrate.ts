import {
  inTransaction,
  type PostgresConnectionOptions,
  type PostgresPool,
  quoteSchema,
  resolvePool,
} from './postgres-pool';
import { PostgresStoreError } from './postgres-store-error';
import { SCHEMA_MIGRATIONS, SCHEMA_VERSION } from './schema-migrations';

export type MigrateOptions = PostgresConnectionOptions & {
  /** The PostgreSQL schema that holds the tables; default `keel`. */
  schema?: string;
  signal?: AbortSignal;
};

export interface MigrateResult {
  schema: string;
  /** The schema's version before this call (0: it did not exist). */
  from: number;
  /** Its version now: the package's `SCHEMA_VERSION`. */
  to: number;
}

/** First key of the advisory lock taken around a migration ('keel' in ASCII); the second is the schema's hash. */
const MIGRATION_LOCK_CLASS = 0x6b65656c;

/**
 * Creates the schema or brings it to this package's version, in one transaction, under an
 * advisory lock on the schema's name: several processes starting at once migrate it once, and
 * the others wait, then find nothing left to do. A schema newer than this package knows is
 * refused (an older process must not write rows a newer one would misread).
 */
export async function migrate(options: MigrateOptions): Promise<MigrateResult> {
  const { pool, owned } = resolvePool(options);
  try {
    return await migratePool(pool, options.schema ?? 'keel', options.signal);
  } finally {
    if (owned) await pool.end();
  }
}

/** `migrate` on a given pool; `target` (tests only) stops at an older version. */
export async function migratePool(
  pool: PostgresPool,
  schema: string,
  signal: AbortSignal | undefined,
  target: number = SCHEMA_VERSION,
): Promise<MigrateResult> {
  const s = quoteSchema(schema);
  return inTransaction(pool, signal, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
      MIGRATION_LOCK_CLASS,
      schema,
    ]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
        version integer PRIMARY KEY,
        description text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`,
    );
    const { rows } = await client.query(
      `SELECT coalesce(max(version), 0) AS version FROM ${s}.schema_migrations`,
    );
    const from = Number(rows[0]?.['version'] ?? 0);
    if (from > SCHEMA_VERSION) {
      throw new PostgresStoreError({
        message: `Schema ${schema} is at version ${from}, newer than this @keel/session-store-postgres knows (${SCHEMA_VERSION}); upgrade the package`,
      });
    }
    for (const migration of SCHEMA_MIGRATIONS) {
      if (migration.version <= from || migration.version > target) continue;
      signal?.throwIfAborted();
      for (const statement of migration.statements(s)) await client.query(statement);
      await client.query(
        `INSERT INTO ${s}.schema_migrations (version, description) VALUES ($1, $2)`,
        [migration.version, migration.description],
      );
    }
    return { schema, from, to: Math.max(from, target) };
  });
}
