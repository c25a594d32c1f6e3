import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { mockProviderUsage } from './parse-mock-provider-args';
import { parseMockScript } from './parse-mock-script';

/*
 * The mock provider part of the README (everything before "## Fake Claude CLI") is executable:
 * every ```ts block runs against the source, with the real SDKs and a real loopback server, and
 * every `// => value` comment is compared with what the matching `console.log` printed
 * (util.inspect, one line). The ```json script must be a valid CLI script.
 */

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const fakeClaudeHeading = readme.indexOf('\n## Fake Claude CLI');
const mockProviderPart = readme.slice(0, fakeClaudeHeading);
const fenced = (language: string) =>
  [...mockProviderPart.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map(
    (match) => match[1] ?? '',
  );
const blocks = fenced('ts');
const workDir = join(packageDir, '.readme-examples');
const packageImport = /from '@keel\/testing'/;

declare global {
  var __readmeLog: ((...values: unknown[]) => void) | undefined;
}

afterAll(() => {
  rmSync(workDir, { recursive: true, force: true });
  globalThis.__readmeLog = undefined;
});

/**
 * Names that `src/index.ts` re-exports (`export { … }` values or `export type { … }` types) from
 * the mock provider's modules. The fake Claude CLI and the conformance kit document theirs in
 * their own README sections.
 */
function mockProviderExports(kind: 'value' | 'type'): string[] {
  const source = readFileSync(join(packageDir, 'src', 'index.ts'), 'utf8');
  const pattern = /^export (type )?\{([^}]*)\} from '\.\/([^']+)'/gm;
  return [...source.matchAll(pattern)]
    .filter((match) => (kind === 'type') === (match[1] !== undefined))
    .filter((match) => /^(?:mock-|default-mock-reply)/.test(match[3] ?? ''))
    .flatMap((match) =>
      (match[2] ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    );
}

const mentions = (text: string, name: string) => new RegExp(`\\b${name}\\b`).test(text);

describe('README', () => {
  it('has its mock provider part and runnable examples in it', () => {
    expect(fakeClaudeHeading).toBeGreaterThan(0);
    expect(blocks.filter((code) => packageImport.test(code)).length).toBeGreaterThanOrEqual(7);
  });

  it('shows every mock provider value in a runnable example and names every type', () => {
    const values = mockProviderExports('value');
    const types = mockProviderExports('type');
    expect(values).toEqual([
      'defaultMockReply',
      'lastUserText',
      'mockFaults',
      'createMockProvider',
    ]);
    expect(types).toContain('RecordedRequest');
    const examples = blocks.filter((code) => packageImport.test(code)).join('\n');
    expect(values.filter((name) => !mentions(examples, name))).toEqual([]);
    expect(types.filter((name) => !mentions(mockProviderPart, name))).toEqual([]);
  });

  it('documents the CLI usage line the CLI prints', () => {
    const usage = /```sh\n(keel-mock-provider [^\n]*)\n```/.exec(mockProviderPart)?.[1];
    expect(usage).toBeDefined();
    expect(mockProviderUsage.split('\n')[0]).toBe(`Usage: ${usage}`);
  });

  it('has a valid CLI script example', () => {
    const scripts = fenced('json');
    expect(scripts).toHaveLength(1);
    expect(parseMockScript(scripts[0] ?? '')).toHaveLength(2);
  });

  it.each(blocks.map((code, index) => [index, code] as const))(
    'block %i runs and prints what it says',
    async (index, code) => {
      const expected = [...code.matchAll(/\/\/ => (.*)$/gm)].map((match) => match[1]?.trim());
      // An example that imports the package must show its result; declaration blocks need not.
      if (packageImport.test(code)) expect(expected.length).toBeGreaterThan(0);
      const printed: string[] = [];
      globalThis.__readmeLog = (...values) => {
        printed.push(
          values
            .map((value) => inspect(value, { breakLength: Number.POSITIVE_INFINITY }))
            .join(' '),
        );
      };
      const source = code
        .replaceAll("from '@keel/testing'", "from '../src/index'")
        .replaceAll('console.log(', 'globalThis.__readmeLog?.(');
      mkdirSync(workDir, { recursive: true });
      const file = join(workDir, `example-${index}.ts`);
      writeFileSync(file, `${source}\nexport {};\n`);
      await import(/* @vite-ignore */ file);
      expect(printed).toEqual(expected);
    },
  );
});
