import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Where a configured plugin's module is: a path (`./x.js`, `/abs/x.js`) relative to the config
 * file's folder, or a package name looked up in `node_modules` folders upward from it (its
 * `exports` `import`/`default` entry, else `module`/`main`). `undefined` when nothing is there.
 */
export function resolvePlugin(specifier: string, baseDir: string): string | undefined {
  if (specifier.startsWith('.') || isAbsolute(specifier)) {
    const path = resolve(baseDir, specifier);
    return existsSync(path) ? pathToFileURL(path).href : undefined;
  }
  const [name, subpath] = splitPackage(specifier);
  for (let dir = baseDir; ; dir = dirname(dir)) {
    const packageDir = join(dir, 'node_modules', name);
    const manifestPath = join(packageDir, 'package.json');
    if (existsSync(manifestPath)) {
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
      const entry = entryOf(manifest, subpath);
      return entry === undefined ? undefined : pathToFileURL(join(packageDir, entry)).href;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

interface Manifest {
  exports?: unknown;
  module?: string;
  main?: string;
}

function splitPackage(specifier: string): [string, string] {
  const parts = specifier.split('/');
  const count = specifier.startsWith('@') ? 2 : 1;
  const rest = parts.slice(count).join('/');
  return [parts.slice(0, count).join('/'), rest === '' ? '.' : `./${rest}`];
}

function entryOf(manifest: Manifest, subpath: string): string | undefined {
  const exported = manifest.exports;
  if (exported !== undefined) {
    const map =
      typeof exported === 'string' || isConditions(exported)
        ? { '.': exported }
        : (exported as Record<string, unknown>);
    return pick(map[subpath]);
  }
  return subpath === '.' ? (manifest.module ?? manifest.main ?? 'index.js') : subpath;
}

function isConditions(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).every((key) => !key.startsWith('.'))
  );
}

function pick(target: unknown): string | undefined {
  if (typeof target === 'string') return target;
  if (typeof target !== 'object' || target === null) return undefined;
  const conditions = target as Record<string, unknown>;
  for (const condition of ['import', 'node', 'default']) {
    const found = pick(conditions[condition]);
    if (found !== undefined) return found;
  }
  return undefined;
}
