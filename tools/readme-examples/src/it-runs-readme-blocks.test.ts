import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fencedBlocks } from './fenced-blocks';
import { itRunsReadmeBlocks } from './it-runs-readme-blocks';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'greeter');
const blocks = fencedBlocks(readFileSync(join(packageDir, 'README.md'), 'utf8'));
// The right block, the silent one (it need not show output) and the one that needs its own TMPDIR.
const passing = [blocks[0] ?? '', blocks[3] ?? '', blocks[5] ?? ''];

describe('itRunsReadmeBlocks', () => {
  itRunsReadmeBlocks(passing, {
    packageDir,
    imports: { '@keel/greeter': 'src/index' },
    title: 'fixture block %i runs and prints what it says',
    requireOutput: (code) => code.includes('// =>'),
    isolateTmpdir: true,
  });

  it('wrote each block to the scratch folder', () => {
    for (const index of passing.keys()) {
      expect(existsSync(join(packageDir, '.readme-examples', `example-${index}.ts`))).toBe(true);
    }
  });
});
