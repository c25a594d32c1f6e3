import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fencedBlocks, itRunsReadmeBlocks } from '@keel/readme-examples';
import { describe, expect, it } from 'vitest';

/*
 * Every ```ts block of the README that imports `@keel/transport` is a complete example: it runs
 * against the source (offline, on the @keel/testing mock provider or fake CLI), and every
 * `// => value` comment is compared with what the matching `console.log` printed (util.inspect,
 * one line). The other ```ts blocks are API signatures and must not pretend to be runnable.
 */

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const blocks = fencedBlocks(readFileSync(join(packageDir, 'README.md'), 'utf8'));
const importsPackage = /^import .* from '@keel\/transport';$/m;
const examples = blocks.filter((code) => importsPackage.test(code));
const signatures = blocks.filter((code) => !importsPackage.test(code));

describe('README examples', () => {
  it('has a quick start, an example for each API, request fields, the mock faults and claude-cli; the rest are signatures', () => {
    expect(examples).toHaveLength(8); // the quick start, seven examples
    for (const api of ['anthropic-messages', 'openai-chat', 'openai-responses']) {
      expect(examples.some((code) => code.includes(`api: '${api}'`))).toBe(true);
    }
    expect(examples.some((code) => code.includes('createClaudeCliTransport({'))).toBe(true);
    for (const code of signatures) expect(code).not.toMatch(/^import |\bawait /m);
  });

  itRunsReadmeBlocks(examples, {
    packageDir,
    imports: { '@keel/transport': 'src/index' },
    title: 'example %i runs and prints what it says',
  });
});
