import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  fencedBlocks,
  itRunsReadmeBlocks,
  readExports,
  typeCheckReadmeBlocks,
  unmentioned,
} from '@keel/readme-examples';
import { describe, expect, it } from 'vitest';

/*
 * Every ```ts block of the README runs against the source (the examples start the loopback
 * provider themselves and use the real @keel/transport and @keel/session-fence, so they run
 * offline), and every `// => value` comment is compared with what the matching `console.log`
 * printed (util.inspect, one line). Blocks that only declare types must at least parse.
 */

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const blocks = fencedBlocks(readme);
const runnable = blocks.filter((code) => code.includes("from '@keel/compaction'"));
const options = { packageDir, imports: { '@keel/compaction': 'src/index' } };

describe('README examples', () => {
  it('has the runnable examples and the API listings', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(4);
    expect(blocks.length).toBeGreaterThanOrEqual(8);
  });

  it('documents every export: values in a runnable example, types at least by name', () => {
    const exported = readExports(readFileSync(join(packageDir, 'src', 'index.ts'), 'utf8'));
    const values = exported.filter((entry) => !entry.type).map((entry) => entry.name);
    const types = exported.filter((entry) => entry.type).map((entry) => entry.name);
    expect(values).toContain('createCompactor');
    expect(types).toContain('CompactionPlan');
    expect(unmentioned(values, runnable.join('\n'))).toEqual([]);
    expect(unmentioned(types, readme)).toEqual([]);
  });

  // A TypeScript program over the package's source: seconds when the machine is quiet, more under load.
  it('type-checks the runnable examples against the source', { timeout: 120_000 }, async () => {
    expect(await typeCheckReadmeBlocks(runnable, options)).toEqual([]);
  });

  itRunsReadmeBlocks(blocks, { ...options, requireOutput: false });
});
