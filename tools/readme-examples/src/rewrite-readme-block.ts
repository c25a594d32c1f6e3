import { join, relative } from 'node:path';
import type { ReadmeBlockOptions } from './readme-block-options';
import { readmeScratchDir } from './readme-scratch-file';

/**
 * The block as a module in the scratch folder: each `from '<specifier>'` that `imports` maps
 * (exactly, or by a prefix ending in `/`) points at the source, relative to the scratch folder, and
 * `export {}` makes it a module even without imports.
 */
export function rewriteReadmeBlock(code: string, options: ReadmeBlockOptions): string {
  const scratchDir = readmeScratchDir(options.packageDir);
  const toSource = (target: string): string => {
    const path = relative(scratchDir, join(options.packageDir, target));
    return `${path.startsWith('.') ? path : `./${path}`}${target.endsWith('/') ? '/' : ''}`;
  };
  const source = code.replace(/from '([^']*)'/g, (whole, specifier: string) => {
    const exact = options.imports[specifier];
    if (exact !== undefined) return `from '${toSource(exact)}'`;
    for (const [prefix, target] of Object.entries(options.imports)) {
      if (prefix.endsWith('/') && specifier.startsWith(prefix)) {
        return `from '${toSource(target)}${specifier.slice(prefix.length)}'`;
      }
    }
    return whole;
  });
  return `${source}\nexport {};\n`;
}
