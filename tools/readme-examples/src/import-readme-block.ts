import { writeFileSync } from 'node:fs';
import { inspect } from 'node:util';
import type { ReadmeBlockOptions } from './readme-block-options';
import { readmeScratchFile } from './readme-scratch-file';
import { rewriteReadmeBlock } from './rewrite-readme-block';

declare global {
  var __readmeLog: ((...values: unknown[]) => void) | undefined;
}

export interface ImportReadmeBlockOptions extends ReadmeBlockOptions {
  /** The scratch file's name, without `.ts`; one per block. */
  name: string;
}

/**
 * Writes the block to the scratch folder (imports rewritten, `console.log` captured), imports
 * it and returns what it printed: one line per `console.log`, each value `util.inspect`ed on one
 * line. Rejects with what the block threw.
 */
export async function importReadmeBlock(
  code: string,
  options: ImportReadmeBlockOptions,
): Promise<string[]> {
  const source = rewriteReadmeBlock(code, options).replaceAll(
    'console.log(',
    'globalThis.__readmeLog?.(',
  );
  const file = readmeScratchFile(options.packageDir, options.name);
  writeFileSync(file, source);
  const printed: string[] = [];
  globalThis.__readmeLog = (...values) => {
    printed.push(
      values.map((value) => inspect(value, { breakLength: Number.POSITIVE_INFINITY })).join(' '),
    );
  };
  try {
    await import(/* @vite-ignore */ file);
  } finally {
    globalThis.__readmeLog = undefined;
  }
  return printed;
}
