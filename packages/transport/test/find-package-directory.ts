import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The real directory of package `name` as Node finds it from `fromDirectory` (walking up). */
export function findPackageDirectory(name: string, fromDirectory: string): string {
  let directory = fromDirectory;
  while (true) {
    const candidate = join(directory, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    const parent = dirname(directory);
    if (parent === directory)
      throw new Error(`Package ${name} is not installed (from ${fromDirectory}).`);
    directory = parent;
  }
}
