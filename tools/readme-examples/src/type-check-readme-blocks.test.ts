import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { fencedBlocks } from './fenced-blocks';
import { readmeScratchDir } from './readme-scratch-file';
import { typeCheckReadmeBlocks } from './type-check-readme-blocks';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'greeter');
const blocks = fencedBlocks(readFileSync(join(packageDir, 'README.md'), 'utf8'));
const options = { packageDir, imports: { '@keel/greeter': 'src/index' } };

afterAll(() => {
  rmSync(readmeScratchDir(packageDir), { recursive: true, force: true });
});

describe('typeCheckReadmeBlocks', () => {
  it('passes blocks that type-check against the source', async () => {
    expect(await typeCheckReadmeBlocks([blocks[0] ?? '', blocks[1] ?? ''], options)).toEqual([]);
  });

  it('reports each problem with its scratch file and line', async () => {
    const problems = await typeCheckReadmeBlocks([blocks[0] ?? '', blocks[4] ?? ''], options);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/typed-1\.ts:3: Type 'string' is not assignable to type 'number'/);
  });

  it('reports an import the rewrite does not map', async () => {
    const problems = await typeCheckReadmeBlocks([blocks[0] ?? ''], { packageDir, imports: {} });
    expect(problems.join('\n')).toMatch(/@keel\/greeter/);
  });
});
