import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fencedBlocks, itRunsReadmeBlocks, readExports, unmentioned } from '@keel/readme-examples';
import { describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const blocks = fencedBlocks(readme);

describe('README examples', () => {
  it('documents every export, values in the API section, types at least by name', () => {
    const exported = readExports(readFileSync(join(packageDir, 'src', 'index.ts'), 'utf8'));
    expect(
      unmentioned(
        exported.map((entry) => entry.name),
        readme,
      ),
    ).toEqual([]);
  });

  itRunsReadmeBlocks(blocks, { packageDir, imports: { '@keel/provider-health': 'src/index' } });
});
