/**
 * One PostgreSQL server for the whole run of this workspace (`@keel/postgres-test-server`; each
 * test file that needs one makes its own database with `useTestDatabase`), always stopped at the
 * end. With `KEEL_TEST_DATABASE_URL` set (a superuser URL), that server is used instead.
 */
import { providePostgres } from '@keel/postgres-test-server';
import type { TestProject } from 'vitest/node';

export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return providePostgres(project);
}
