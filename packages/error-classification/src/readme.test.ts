import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fencedBlocks, itRunsReadmeBlocks, readExports, unmentioned } from '@keel/readme-examples';
import { describe, expect, it } from 'vitest';

/*
 * Every ```ts block of the README runs against the source, and every `// => value` comment is
 * compared with what the matching `console.log` printed (util.inspect, one line).
 */

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const blocks = fencedBlocks(readme);

describe('README examples', () => {
  it('has examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(9);
  });

  it('documents every export: values in a runnable example, types at least by name', () => {
    const exported = readExports(readFileSync(join(packageDir, 'src', 'index.ts'), 'utf8'));
    const values = exported.filter((entry) => !entry.type).map((entry) => entry.name);
    const types = exported.filter((entry) => entry.type).map((entry) => entry.name);
    expect(values).toContain('classifyError');
    expect(types).toContain('ErrorClassification');
    expect(unmentioned(values, blocks.join('\n'))).toEqual([]);
    expect(unmentioned(types, readme)).toEqual([]);
  });

  // A block without `// =>` would prove nothing but that it runs.
  itRunsReadmeBlocks(blocks, {
    packageDir,
    imports: { '@keel/error-classification': 'src/index' },
  });
});
