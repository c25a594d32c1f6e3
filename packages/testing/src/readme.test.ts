import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fencedBlocks, itRunsReadmeBlocks, readExports, unmentioned } from '@keel/readme-examples';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CHAOS_RATES } from './mock-chaos';
import { mockProviderBanner } from './mock-provider-banner';
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
const blocks = fencedBlocks(mockProviderPart);
const packageImport = /from '@keel\/testing'/;

/**
 * Names that `src/index.ts` re-exports (`export { … }` values or `export type { … }` types) from
 * the mock provider's modules. The fake Claude CLI and the conformance kit document theirs in
 * their own README sections.
 */
function mockProviderExports(kind: 'value' | 'type'): string[] {
  return readExports(readFileSync(join(packageDir, 'src', 'index.ts'), 'utf8'))
    .filter((entry) => (kind === 'type') === entry.type)
    .filter((entry) => /^\.\/(?:mock-|default-mock-reply)/.test(entry.from ?? ''))
    .map((entry) => entry.name);
}

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
      'mockDemoTools',
      'mockFaults',
      'createMockProvider',
    ]);
    expect(types).toContain('RecordedRequest');
    const examples = blocks.filter((code) => packageImport.test(code)).join('\n');
    expect(unmentioned(values, examples)).toEqual([]);
    expect(unmentioned(types, mockProviderPart)).toEqual([]);
  });

  it('documents the CLI usage line the CLI prints', () => {
    const usage = /```sh\n(keel-mock-provider [^\n]*)\n```/.exec(mockProviderPart)?.[1];
    expect(usage).toBeDefined();
    expect(mockProviderUsage.split('\n')[0]).toBe(`Usage: ${usage}`);
  });

  it('shows the banner the CLI prints', () => {
    const banner = fencedBlocks(mockProviderPart, 'text')[0];
    const url = /listening on (\S+)/.exec(banner ?? '')?.[1] ?? 'missing';
    expect(banner?.trimEnd()).toBe(
      mockProviderBanner({ url, openaiBaseUrl: `${url}/v1`, anthropicBaseUrl: url }),
    );
  });

  it('lists every chaos fault with its default rate', () => {
    const rows = [...mockProviderPart.matchAll(/^\| `([a-z-]+)` +\| ([0-9.]+) +\|/gm)];
    const documented = Object.fromEntries(rows.map((row) => [row[1], Number(row[2])]));
    expect(documented).toEqual(DEFAULT_CHAOS_RATES);
  });

  it('has a valid CLI script example', () => {
    const scripts = fencedBlocks(mockProviderPart, 'json');
    expect(scripts).toHaveLength(1);
    expect(parseMockScript(scripts[0] ?? '')).toHaveLength(2);
  });

  // An example that imports the package must show its result; declaration blocks need not.
  itRunsReadmeBlocks(blocks, {
    packageDir,
    imports: { '@keel/testing': 'src/index' },
    requireOutput: (code) => packageImport.test(code),
  });
});
