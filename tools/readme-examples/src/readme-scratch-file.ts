import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** The folder, git-ignored, where README blocks are written to be imported or type-checked. */
export function readmeScratchDir(packageDir: string): string {
  return join(packageDir, '.readme-examples');
}

/** Creates the scratch folder and returns the path of `<name>.ts` in it. */
export function readmeScratchFile(packageDir: string, name: string): string {
  const dir = readmeScratchDir(packageDir);
  mkdirSync(dir, { recursive: true });
  return join(dir, `${name}.ts`);
}
