import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/*
 * Every ```ts block of the README runs against the source, and every `// => value` comment is
 * compared with what the matching `console.log` printed (util.inspect, one line).
 */

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
const workDir = join(packageDir, '.readme-examples');

declare global {
  var __readmeLog: ((...values: unknown[]) => void) | undefined;
}

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
  globalThis.__readmeLog = undefined;
});

describe('README examples', () => {
  it('has examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(9);
  });

  it('documents every export: values in a runnable example, types at least by name', () => {
    const index = readFileSync(join(packageDir, 'src', 'index.ts'), 'utf8');
    const exported = (pattern: RegExp) =>
      [...index.matchAll(pattern)].flatMap((match) =>
        (match[1] ?? '')
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean),
      );
    const values = exported(/^export \{([^}]*)\}/gm);
    const types = exported(/^export type \{([^}]*)\}/gm);
    expect(values).toContain('classifyError');
    expect(types).toContain('ErrorClassification');
    const mentioned = (name: string, text: string) => new RegExp(`\\b${name}\\b`).test(text);
    const examples = blocks.join('\n');
    expect(values.filter((name) => !mentioned(name, examples))).toEqual([]);
    expect(types.filter((name) => !mentioned(name, readme))).toEqual([]);
  });

  it.each(blocks.map((code, index) => [index, code] as const))(
    'block %i runs and prints what it says',
    async (index, code) => {
      const expected = [...code.matchAll(/\/\/ => (.*)$/gm)].map((match) => match[1]?.trim());
      // A block without `// =>` would prove nothing but that it runs.
      expect(expected.length).toBeGreaterThan(0);
      const printed: string[] = [];
      globalThis.__readmeLog = (...values) => {
        printed.push(
          values
            .map((value) => inspect(value, { breakLength: Number.POSITIVE_INFINITY }))
            .join(' '),
        );
      };
      const source = code
        .replaceAll("from '@keel/error-classification'", "from '../src/index'")
        .replaceAll('console.log(', 'globalThis.__readmeLog?.(');
      mkdirSync(workDir, { recursive: true });
      const file = join(workDir, `example-${index}.ts`);
      writeFileSync(file, `${source}\nexport {};\n`);
      await import(/* @vite-ignore */ file);
      expect(printed).toEqual(expected);
    },
  );
});
