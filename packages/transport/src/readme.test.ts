import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/*
 * Every ```ts block of the README that imports `@keel/transport` is a complete example: it runs
 * against the source (offline, on the @keel/testing mock provider or fake CLI), and every
 * `// => value` comment is compared with what the matching `console.log` printed (util.inspect,
 * one line). The other ```ts blocks are API signatures and must not pretend to be runnable.
 */

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
const importsPackage = /^import .* from '@keel\/transport';$/m;
const examples = blocks.filter((code) => importsPackage.test(code));
const signatures = blocks.filter((code) => !importsPackage.test(code));
const workDir = join(packageDir, '.readme-examples');

declare global {
  var __readmeLog: ((...values: unknown[]) => void) | undefined;
}

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
  globalThis.__readmeLog = undefined;
});

describe('README examples', () => {
  it('has an example for each API, the mock faults and claude-cli; the rest are signatures', () => {
    expect(examples).toHaveLength(6);
    for (const api of ['anthropic-messages', 'openai-chat', 'openai-responses']) {
      expect(examples.some((code) => code.includes(`api: '${api}'`))).toBe(true);
    }
    expect(examples.some((code) => code.includes('createClaudeCliTransport({'))).toBe(true);
    for (const code of signatures) expect(code).not.toMatch(/^import |\bawait /m);
  });

  it.each(examples.map((code, index) => [index, code] as const))(
    'example %i runs and prints what it says',
    async (index, code) => {
      const expected = [...code.matchAll(/\/\/ => (.*)$/gm)].map((match) => match[1]?.trim());
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
        .replaceAll("from '@keel/transport'", "from '../src/index'")
        .replaceAll('console.log(', 'globalThis.__readmeLog?.(');
      mkdirSync(workDir, { recursive: true });
      const file = join(workDir, `example-${index}.ts`);
      writeFileSync(file, `${source}\nexport {};\n`);
      await import(/* @vite-ignore */ file);
      expect(printed).toEqual(expected);
    },
  );
});
