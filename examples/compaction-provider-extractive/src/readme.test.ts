import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

/*
 * The README is the guide to writing a provider, so its examples must work:
 * - every ```ts block that imports `@keel/compaction` runs (this example's own import rewritten to
 *   ../src/index; `@keel/compaction` stays the real package) and type-checks, and every
 *   `// => value` comment is compared with what the matching `console.log` printed;
 * - the conformance-kit block is a test file: it is imported while this file is collected, so the
 *   kit's tests it registers run below as they would in a provider's own repository.
 */

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
const workDir = join(packageDir, '.readme-examples');
const runnable = blocks.filter((code) => code.includes("from '@keel/compaction'"));
const kitBlocks = blocks.filter((code) => code.includes('describeCompactionProviderConformance('));

const toSource = (code: string): string =>
  `${code
    .replaceAll("from '@keel/example-compaction-provider-extractive'", "from '../src/index'")
    .replaceAll("from './", "from '../src/")}\nexport {};\n`;

declare global {
  var __readmeLog: ((...values: unknown[]) => void) | undefined;
}

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
  globalThis.__readmeLog = undefined;
});

mkdirSync(workDir, { recursive: true });
for (const [index, code] of kitBlocks.entries()) {
  const file = join(workDir, `kit-${index}.ts`);
  writeFileSync(file, toSource(code));
  await import(/* @vite-ignore */ file);
}

describe('README examples', () => {
  it('has the usage, the contract and the conformance kit examples', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(2);
    expect(kitBlocks).toHaveLength(1);
    expect(blocks).toHaveLength(runnable.length + kitBlocks.length);
  });

  it('type-checks every example', () => {
    const files = [...runnable, ...kitBlocks].map((code, index) => {
      const file = join(workDir, `typed-${index}.ts`);
      writeFileSync(file, toSource(code));
      return file;
    });
    const config = ts.readConfigFile(join(packageDir, 'tsconfig.json'), ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, packageDir);
    const program = ts.createProgram(files, { ...options, noEmit: true });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter(
        (diagnostic) => diagnostic.file !== undefined && files.includes(diagnostic.file.fileName),
      )
      .map((diagnostic) => {
        const where = diagnostic.file?.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
        const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
        return `${diagnostic.file?.fileName}:${(where?.line ?? 0) + 1}: ${message}`;
      });
    expect(problems).toEqual([]);
  });

  it.each(runnable.map((code, index) => [index, code] as const))(
    'example %i runs and prints what it says',
    async (index, code) => {
      const expected = [...code.matchAll(/\/\/ => (.*)$/gm)].map((match) => match[1]?.trim());
      const printed: string[] = [];
      globalThis.__readmeLog = (...values) => {
        printed.push(
          values
            .map((value) => inspect(value, { breakLength: Number.POSITIVE_INFINITY }))
            .join(' '),
        );
      };
      const file = join(workDir, `example-${index}.ts`);
      writeFileSync(file, toSource(code).replaceAll('console.log(', 'globalThis.__readmeLog?.('));
      await import(/* @vite-ignore */ file);
      expect(printed).toEqual(expected);
    },
  );
});
