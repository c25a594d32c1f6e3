import { abortable } from './abortable';
import { migratePool } from './migrate';
import { type PostgresPool, quoteSchema } from './postgres-pool';
import { PostgresStoreError } from './postgres-store-error';

/** Makes every call wait for the schema's migration (run once, on first use) and refuses calls after `close()`. */
export interface SchemaGate {
  /** The schema, quoted for SQL. */
  readonly schema: string;
  /** Resolves once the schema is migrated; a failed migration is tried again by the next call. */
  ready(signal: AbortSignal | undefined): Promise<void>;
  /** Set by `close()`: every later call rejects. */
  closed: boolean;
}

export function createSchemaGate(options: {
  pool: PostgresPool;
  schema: string;
  migrate: boolean;
}): SchemaGate {
  const schema = quoteSchema(options.schema);
  let migrated: Promise<void> | undefined = options.migrate ? undefined : Promise.resolve();
  const gate: SchemaGate = {
    schema,
    closed: false,
    ready(signal) {
      signal?.throwIfAborted();
      if (gate.closed) {
        return Promise.reject(new PostgresStoreError({ message: 'This store was closed' }));
      }
      if (migrated === undefined) {
        const running = migratePool(options.pool, options.schema, undefined).then(() => {});
        migrated = running;
        running.catch(() => {
          if (migrated === running) migrated = undefined;
        });
      }
      return abortable(migrated, signal);
    },
  };
  return gate;
}
