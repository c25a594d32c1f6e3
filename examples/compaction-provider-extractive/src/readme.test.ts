import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  fencedBlocks,
  importReadmeBlock,
  itRunsReadmeBlocks,
  typeCheckReadmeBlocks,
} from '@keel/readme-examples';
import { describe, expect, it } from 'vitest';

/*
 * The README is the guide to writing a provider, so its examples must work:
 * - every ```ts block that imports `@keel/compaction` runs (this example's own import rewritten to
 *   ../src/index; `@keel/compaction` stays the real package) and type-checks, and every
 *   `// => value` comment is compared with what the matching `console.log` printed;
 * - the conformance-kit block is a test file: it is imported while this file is collected, so the
 *   kit's tests it registers run below as they would in a provider's own repository.
 */

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const blocks = fencedBlocks(readFileSync(join(packageDir, 'README.md'), 'utf8'));
const runnable = blocks.filter((code) => code.includes("from '@keel/compaction'"));
const kitBlocks = blocks.filter((code) => code.includes('describeCompactionProviderConformance('));
const options = {
  packageDir,
  imports: { '@keel/example-compaction-provider-extractive': 'src/index', './': 'src/' },
};

for (const [index, code] of kitBlocks.entries()) {
  await importReadmeBlock(code, { ...options, name: `kit-${index}` });
}

describe('README examples', () => {
  it('has the usage, the contract and the conformance kit examples', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(2);
    expect(kitBlocks).toHaveLength(1);
    expect(blocks).toHaveLength(runnable.length + kitBlocks.length);
  });

  it('type-checks every example', async () => {
    expect(await typeCheckReadmeBlocks([...runnable, ...kitBlocks], options)).toEqual([]);
  });

  itRunsReadmeBlocks(runnable, {
    ...options,
    title: 'example %i runs and prints what it says',
    requireOutput: false,
  });
});
