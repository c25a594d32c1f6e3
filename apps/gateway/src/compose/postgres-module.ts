import type { KeelConfig } from '../config/config-schema';

/** `@keel/session-store-postgres`, as the gateway uses it. */
export type PostgresModule = typeof import('@keel/session-store-postgres');

/**
 * The PostgreSQL store's package, loaded only for a configuration that keeps its sessions there
 * (`storage.kind` `postgres`): with the file store, the package and its driver would be heap that
 * every full collection walks for nothing (issue 20).
 */
export async function loadPostgres(config: KeelConfig): Promise<PostgresModule | undefined> {
  return config.storage.kind === 'postgres' ? import('@keel/session-store-postgres') : undefined;
}

/** The loaded package, for code that runs only with `storage.kind` `postgres`. */
export function requirePostgres(postgres: PostgresModule | undefined): PostgresModule {
  if (postgres === undefined) {
    throw new Error('storage.kind is "postgres" but @keel/session-store-postgres was not loaded');
  }
  return postgres;
}
