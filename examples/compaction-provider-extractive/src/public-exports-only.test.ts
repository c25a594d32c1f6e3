import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * This example stands for an outside package: it may reach @keel/compaction only as a declared
 * dependency, through the package's public entry point — never through a relative path into
 * packages/, a deep import, or a tsconfig path mapping.
 */

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = join(packageDir, 'src');
const sources = readdirSync(sourceDir)
  .filter((name) => name.endsWith('.ts'))
  .map((name) => ({ name, text: readFileSync(join(sourceDir, name), 'utf8') }));
const specifiers = sources.flatMap(({ name, text }) =>
  // import / export statements (single- or multi-line) and dynamic imports of a literal
  [
    ...text.matchAll(
      /^(?:import|export)\b[^;]*?\sfrom\s+'([^']+)'|^import\s+'([^']+)'|\bimport\('([^']+)'\)/gm,
    ),
  ].map((match) => ({
    name,
    specifier: match[1] ?? match[2] ?? match[3] ?? '',
  })),
);

describe('the example uses only public exports', () => {
  it('declares @keel/compaction (and @keel/spec, for the plugin type) as ordinary dependencies', () => {
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    expect(manifest.dependencies).toEqual({
      '@keel/compaction': 'workspace:*',
      '@keel/spec': 'workspace:*',
    });
    const tsconfig = JSON.parse(readFileSync(join(packageDir, 'tsconfig.json'), 'utf8'));
    expect(tsconfig.compilerOptions?.paths).toBeUndefined();
  });

  it('imports siblings, node built-ins and the public entry points only', () => {
    expect(specifiers.length).toBeGreaterThan(0);
    const allowed = (specifier: string): boolean =>
      /^\.\/[\w-]+$/.test(specifier) ||
      specifier.startsWith('node:') ||
      [
        '@keel/compaction',
        '@keel/spec',
        '@keel/testing/vitest',
        '@keel/readme-examples',
        'vitest',
        'typescript',
      ].includes(specifier);
    expect(specifiers.filter(({ specifier }) => !allowed(specifier))).toEqual([]);
  });

  it('keeps @keel/compaction imports to the provider code, @keel/testing and the README runner to tests', () => {
    for (const { name, specifier } of specifiers) {
      if (['@keel/testing/vitest', '@keel/readme-examples', 'vitest'].includes(specifier)) {
        expect(name).toMatch(/\.test\.ts$/);
      }
    }
    const providerFiles = sources.filter(({ name }) => !name.endsWith('.test.ts'));
    expect(providerFiles.some(({ text }) => text.includes("from '@keel/compaction'"))).toBe(true);
  });
});
