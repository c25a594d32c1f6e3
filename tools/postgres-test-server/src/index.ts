export type { CreatedDatabase } from './create-database';
export { createDatabase } from './create-database';
export type { PostgresServer, StartPostgresServerOptions } from './postgres-server';
export { postgresBinDir, startPostgresServer } from './postgres-server';
export { providePostgres } from './provide-postgres';
export type { TestDatabase } from './test-database';
export { useTestDatabase } from './test-database';
