import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { fencedBlocks } from './fenced-blocks';
import { readmeScratchDir } from './readme-scratch-file';
import { runReadmeBlock } from './run-readme-block';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'greeter');
const blocks = fencedBlocks(readFileSync(join(packageDir, 'README.md'), 'utf8'));
const [right, wrongValue, throws, silent, mistyped, tmp] = blocks;
const options = { packageDir, imports: { '@keel/greeter': 'src/index' } };

afterAll(() => {
  rmSync(readmeScratchDir(packageDir), { recursive: true, force: true });
});

describe('runReadmeBlock', () => {
  it('reads the fixture blocks', () => {
    expect(blocks).toHaveLength(6);
  });

  it('passes a block that prints what its `// =>` comments say', async () => {
    await runReadmeBlock(right ?? '', { ...options, name: 'right' });
  });

  it('fails a block whose `// =>` value is wrong', async () => {
    await expect(runReadmeBlock(wrongValue ?? '', { ...options, name: 'wrong' })).rejects.toThrow(
      /deeply equal .*Hi, Ada/,
    );
  });

  it('fails a block that throws, with what it threw', async () => {
    await expect(runReadmeBlock(throws ?? '', { ...options, name: 'throws' })).rejects.toThrow(
      'greet needs a name',
    );
  });

  it('fails a block without `// =>` unless told it need not show output', async () => {
    await expect(runReadmeBlock(silent ?? '', { ...options, name: 'silent' })).rejects.toThrow();
    await runReadmeBlock(silent ?? '', { ...options, name: 'silent', requireOutput: false });
  });

  it('fails a block whose mapped import escaped the rewrite', async () => {
    const code = `${right}\nawait import('@keel/greeter');\n`;
    await expect(runReadmeBlock(code, { ...options, name: 'escaped' })).rejects.toThrow(
      '@keel/greeter',
    );
  });

  it('runs a block with its own TMPDIR when asked, and restores it', async () => {
    const before = process.env['TMPDIR'];
    await expect(runReadmeBlock(tmp ?? '', { ...options, name: 'shared-tmp' })).rejects.toThrow();
    await runReadmeBlock(tmp ?? '', { ...options, name: 'own-tmp', isolateTmpdir: true });
    expect(process.env['TMPDIR']).toBe(before);
  });

  it('runs the blocks, not the type checker', async () => {
    await expect(runReadmeBlock(mistyped ?? '', { ...options, name: 'mistyped' })).resolves.toBe(
      undefined,
    );
  });
});
