/**
 * One PostgreSQL server for the whole test run (`@keel/postgres-test-server`: each test file
 * makes its own database on it with `useTestDatabase`), always stopped at the end. With
 * `KEEL_TEST_DATABASE_URL` set (a superuser URL), that server is used instead.
 *
 * The child-process tests import this package's built `dist/`, so it must match `src/`: in CI
 * (`CI` set) the build ran before the tests and a missing `dist/` fails here; locally it is
 * rebuilt (without `clean`) when a source file is newer.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { providePostgres } from '@keel/postgres-test-server';
import type { TestProject } from 'vitest/node';

const root = fileURLToPath(new URL('..', import.meta.url));

function newest(paths: string[]): number {
  return Math.max(...paths.map((path) => statSync(path).mtimeMs));
}

function oldestBuilt(): number {
  try {
    return Math.min(
      ...['index.js', 'index.d.ts'].map((name) => statSync(join(root, 'dist', name)).mtimeMs),
    );
  } catch {
    return 0;
  }
}

function inCi(): boolean {
  const value = process.env['CI'];
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

async function ensureBuilt(): Promise<void> {
  const built = oldestBuilt();
  if (inCi()) {
    if (built > 0) return;
    throw new Error(
      '@keel/session-store-postgres: dist/ is missing. In CI the build runs before the tests (pnpm check).',
    );
  }
  const sources = readdirSync(join(root, 'src'))
    .filter((name) => name.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(name))
    .map((name) => join(root, 'src', name));
  if (built >= newest([...sources, join(root, 'tsup.config.ts'), join(root, 'package.json')])) {
    return;
  }
  const { build } = await import('tsup');
  await build({ config: join(root, 'tsup.config.ts'), clean: false, silent: true });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await ensureBuilt();
  return providePostgres(project);
}
