import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fencedBlocks, itRunsReadmeBlocks, readExports, unmentioned } from '@keel/readme-examples';
import { describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');

describe('README examples', () => {
  it('names every export', () => {
    const exported = readExports(readFileSync(join(packageDir, 'src', 'index.ts'), 'utf8'));
    expect(
      unmentioned(
        exported.map((entry) => entry.name).filter((name) => !name.includes(' as ')),
        readme,
      ),
    ).toEqual([]);
  });

  itRunsReadmeBlocks(fencedBlocks(readme), {
    packageDir,
    imports: { '@keel/example-plugin-decision-log': 'src/index' },
  });
});
