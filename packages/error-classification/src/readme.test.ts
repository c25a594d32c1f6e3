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
