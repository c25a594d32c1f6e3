import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { expectedOutputs } from './expected-outputs';
import { type ImportReadmeBlockOptions, importReadmeBlock } from './import-readme-block';
import { rewriteReadmeBlock } from './rewrite-readme-block';

export interface RunReadmeBlockOptions extends ImportReadmeBlockOptions {
  /** The block must have a `// =>` comment: one without proves only that it runs. Default true. */
  requireOutput?: boolean;
  /** Runs the block with `TMPDIR` (its `os.tmpdir()`) in a fresh folder, removed afterwards. */
  isolateTmpdir?: boolean;
}

/**
 * Runs a README block against the source and asserts (vitest `expect`) that no mapped import
 * escaped the rewrite and that it printed exactly what its `// =>` comments say. Rejects with an
 * assertion error otherwise, or with what the block threw.
 */
export async function runReadmeBlock(code: string, options: RunReadmeBlockOptions): Promise<void> {
  const expected = expectedOutputs(code);
  if (options.requireOutput ?? true) expect(expected.length).toBeGreaterThan(0);
  const rewritten = rewriteReadmeBlock(code, options);
  for (const specifier of Object.keys(options.imports)) {
    if (!specifier.endsWith('/')) expect(rewritten).not.toContain(specifier);
  }
  if (!options.isolateTmpdir) {
    expect(await importReadmeBlock(code, options)).toEqual(expected);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'keel-readme-'));
  const saved = process.env['TMPDIR'];
  process.env['TMPDIR'] = dir;
  try {
    expect(await importReadmeBlock(code, options)).toEqual(expected);
  } finally {
    if (saved === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = saved;
    rmSync(dir, { recursive: true, force: true });
  }
}
