import type { TestProject } from 'vitest/node';
import { startPostgresServer } from './postgres-server';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A superuser connection string to the run's server (its `postgres` database). */
    postgresAdminUrl: string;
  }
}

/**
 * For a vitest `globalSetup`: starts one server for the whole run (or uses the superuser URL in
 * `KEEL_TEST_DATABASE_URL`), provides its URL to the test files as `postgresAdminUrl`, and
 * returns the teardown that stops it.
 */
export async function providePostgres(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env['KEEL_TEST_DATABASE_URL'];
  if (external) {
    project.provide('postgresAdminUrl', external);
    return async () => {};
  }
  const server = await startPostgresServer();
  project.provide('postgresAdminUrl', server.adminUrl);
  return () => server.stop();
}
