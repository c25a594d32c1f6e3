import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

/*
 * Every ```ts block of the README runs against the source (the examples start the loopback
 * provider themselves and use the real @keel/transport and @keel/session-fence, so they run
 * offline), and every `// => value` comment is compared with what the matching `console.log`
 * printed (util.inspect, one line). Blocks that only declare types must at least parse.
 */

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
const workDir = join(packageDir, '.readme-examples');
const runnable = blocks.filter((code) => code.includes("from '@keel/compaction'"));
const toSource = (code: string): string =>
  `${code.replaceAll("from '@keel/compaction'", "from '../src/index'")}\nexport {};\n`;

declare global {
  var __readmeLog: ((...values: unknown[]) => void) | undefined;
}

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
  globalThis.__readmeLog = undefined;
});

describe('README examples', () => {
  it('has the runnable examples and the API listings', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(2);
    expect(blocks.length).toBeGreaterThanOrEqual(6);
  });

  it('type-checks the runnable examples against the source', () => {
    mkdirSync(workDir, { recursive: true });
    const files = runnable.map((code, index) => {
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

  it.each(blocks.map((code, index) => [index, code] as const))(
    'block %i runs and prints what it says',
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
      const source = toSource(code).replaceAll('console.log(', 'globalThis.__readmeLog?.(');
      mkdirSync(workDir, { recursive: true });
      const file = join(workDir, `example-${index}.ts`);
      writeFileSync(file, source);
      await import(/* @vite-ignore */ file);
      expect(printed).toEqual(expected);
    },
  );
});
