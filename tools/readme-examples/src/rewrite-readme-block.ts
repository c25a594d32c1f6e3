import { join, relative } from 'node:path';
import type { ReadmeBlockOptions } from './readme-block-options';
import { readmeScratchDir } from './readme-scratch-file';

/**
 * The block as a module in the scratch folder: mapped imports point at the source (relative to
 * the scratch folder) and `export {}` makes it a module even without imports.
 */
export function rewriteReadmeBlock(code: string, options: ReadmeBlockOptions): string {
  const scratchDir = readmeScratchDir(options.packageDir);
  let source = code;
  for (const [specifier, target] of Object.entries(options.imports)) {
    const prefix = specifier.endsWith('/');
    let path = relative(scratchDir, join(options.packageDir, target));
    if (!path.startsWith('.')) path = `./${path}`;
    source = source.replaceAll(`from '${specifier}`, `from '${path}${prefix ? '/' : ''}`);
  }
  return `${source}\nexport {};\n`;
}
