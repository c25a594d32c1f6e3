import { rmSync } from 'node:fs';
import { afterAll, it } from 'vitest';
import type { ReadmeBlockOptions } from './readme-block-options';
import { readmeScratchDir } from './readme-scratch-file';
import { runReadmeBlock } from './run-readme-block';

export interface ItRunsReadmeBlocksOptions extends ReadmeBlockOptions {
  /** The test title; `%i` is the block's index in `blocks`. */
  title?: string;
  /** Which blocks must have a `// =>` comment (default: every one). */
  requireOutput?: boolean | ((code: string) => boolean);
  /** Each block runs with its own `TMPDIR`, removed afterwards. */
  isolateTmpdir?: boolean;
}

/**
 * Registers one vitest test per block (`runReadmeBlock`, scratch file `example-<index>.ts`) and
 * removes the scratch folder after the file's tests.
 */
export function itRunsReadmeBlocks(
  blocks: readonly string[],
  options: ItRunsReadmeBlocksOptions,
): void {
  const { title = 'block %i runs and prints what it says', requireOutput = true } = options;
  afterAll(() => {
    rmSync(readmeScratchDir(options.packageDir), { recursive: true, force: true });
  });
  it.each(blocks.map((code, index) => [index, code] as const))(title, async (index, code) => {
    await runReadmeBlock(code, {
      packageDir: options.packageDir,
      imports: options.imports,
      name: `example-${index}`,
      requireOutput: typeof requireOutput === 'function' ? requireOutput(code) : requireOutput,
      isolateTmpdir: options.isolateTmpdir ?? false,
    });
  });
}
