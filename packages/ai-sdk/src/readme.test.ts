import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fencedBlocks, itRunsReadmeBlocks, readExports, unmentioned } from '@keel/readme-examples';
import { describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
// The quick start and the API's option shapes; only blocks with `// =>` run.
const blocks = fencedBlocks(readme).filter((block) => block.includes('// =>'));

describe('README examples', () => {
  it('documents every export', () => {
    const exported = readExports(readFileSync(join(packageDir, 'src', 'index.ts'), 'utf8'));
    expect(
      unmentioned(
        exported.map((entry) => entry.name),
        readme,
      ),
    ).toEqual([]);
  });

  it('keeps the quick start under 25 lines', () => {
    expect(blocks[0]?.trim().split('\n').length).toBeLessThan(25);
  });

  itRunsReadmeBlocks(blocks, { packageDir, imports: { '@keel/ai-sdk': 'src/index' } });
});
