/*
 * Every ```ts block of the README runs against the source, with `DATABASE_URL` pointing at this
 * file's own database, and every `// => value` comment is compared with what the block printed.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useTestDatabase } from '@keel/postgres-test-server';
import { fencedBlocks, itRunsReadmeBlocks, readExports, unmentioned } from '@keel/readme-examples';
import { beforeAll, describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const blocks = fencedBlocks(readme);
const database = useTestDatabase();

beforeAll(() => {
  process.env['DATABASE_URL'] = database.url;
});

describe('README examples', () => {
  it('has the examples, and each checks what it prints', () => {
    expect(blocks).toHaveLength(6);
    for (const code of blocks) expect(code).toMatch(/\/\/ => /);
  });

  it('names every export', () => {
    const source = readFileSync(join(packageDir, 'src', 'index.ts'), 'utf8');
    const own = readExports(source).filter((name) => name.from !== '@keel/spec');
    expect(own.length).toBeGreaterThan(10);
    expect(
      unmentioned(
        own.map((name) => name.name),
        readme,
      ),
    ).toEqual([]);
  });

  itRunsReadmeBlocks(blocks, {
    packageDir,
    imports: { '@keel/session-store-postgres': 'src/index' },
  });
});
