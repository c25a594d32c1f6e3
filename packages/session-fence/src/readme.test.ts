/*
 * Every ```ts block of the README runs against the source, in a temp dir of its own (its
 * `os.tmpdir()`), and every `// => value` comment is compared with what the matching
 * `console.log` printed (util.inspect, one line).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
const entry = join(packageDir, 'src', 'index.ts');

declare global {
  var __readmeLog: ((...values: unknown[]) => void) | undefined;
}

let workDir: string;
let savedTmpdir: string | undefined;
beforeEach(() => {
  workDir = mkdtempSync(join(tmpdir(), 'keel-session-fence-readme-'));
  savedTmpdir = process.env['TMPDIR'];
  process.env['TMPDIR'] = workDir;
});
afterEach(() => {
  if (savedTmpdir === undefined) delete process.env['TMPDIR'];
  else process.env['TMPDIR'] = savedTmpdir;
  globalThis.__readmeLog = undefined;
  rmSync(workDir, { recursive: true, force: true });
});

describe('README examples', () => {
  it('has the examples, and each checks what it prints', () => {
    expect(blocks).toHaveLength(2);
    for (const code of blocks) expect(code).toMatch(/\/\/ => /);
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
        .replaceAll("from '@keel/session-fence'", `from ${JSON.stringify(entry)}`)
        .replaceAll('console.log(', 'globalThis.__readmeLog?.(');
      expect(source).not.toContain('@keel/session-fence');
      const file = join(workDir, `example-${index}.ts`);
      writeFileSync(file, `${source}\nexport {};\n`);
      await import(/* @vite-ignore */ file);
      expect(printed).toEqual(expected);
    },
  );
});
