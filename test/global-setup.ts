/**
 * One throwaway PostgreSQL server for the whole run (`@keel/postgres-test-server`; about a second
 * to start), for the multi-gateway suites: each of their files makes its own database on it with
 * `useTestDatabase()`. Vitest calls the teardown this returns at the end of every run, failed
 * ones included, and it stops the server and removes its files; if the run itself is killed, the
 * kernel stops the server (`setpriv --pdeathsig`). With `KEEL_TEST_DATABASE_URL` (a superuser
 * URL) that server is used instead and nothing is started.
 */
import { providePostgres } from '@keel/postgres-test-server';
import type { TestProject } from 'vitest/node';

export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return providePostgres(project);
}
