/**
 * Type test (checked by `tsc --noEmit`): the stores satisfy the spec's ports, and a `pg.Pool`
 * (and its clients) fits the structural `PostgresPool` this package declares, so callers pass
 * their own pool without this package's types depending on `@types/pg`.
 */
import type { ProviderHealth, SessionStorage } from '@keel/spec';
import pg from 'pg';
import type { PostgresPool } from './index';
import { createPostgresProviderHealth, createPostgresSessionStorage } from './index';

const pool = new pg.Pool() satisfies PostgresPool;
export const storagePort = createPostgresSessionStorage({ pool }) satisfies SessionStorage;
export const healthPort = createPostgresProviderHealth({ pool }) satisfies ProviderHealth;
export const fromUrl = createPostgresSessionStorage({
  connectionString: 'postgresql://localhost/keel',
  maxConnections: 4,
}) satisfies SessionStorage;
// @ts-expect-error: a pool or a connection string, not both
createPostgresSessionStorage({ pool, connectionString: 'postgresql://localhost/keel' });
