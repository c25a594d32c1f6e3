/*
 * Every ```ts block of the README runs against the source, in a temp dir of its own (its
 * `os.tmpdir()`), and every `// => value` comment is compared with what the matching
 * `console.log` printed (util.inspect, one line).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fencedBlocks, itRunsReadmeBlocks } from '@keel/readme-examples';
import { describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const blocks = fencedBlocks(readFileSync(join(packageDir, 'README.md'), 'utf8'));

describe('README examples', () => {
  it('has the examples, and each checks what it prints', () => {
    expect(blocks).toHaveLength(5); // the quick start and four examples
    for (const code of blocks) expect(code).toMatch(/\/\/ => /);
  });

  // Each block also must not name `@keel/session-fence` once its imports point at the source.
  itRunsReadmeBlocks(blocks, {
    packageDir,
    imports: { '@keel/session-fence': 'src/index' },
    isolateTmpdir: true,
  });
});
