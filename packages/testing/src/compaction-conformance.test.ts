import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CompactionProvider } from '@keel/spec';
import { afterAll, describe, expect, it } from 'vitest';
import type { ConformanceCheckContext } from './compaction-conformance-checks';
import { compactionProviderChecks } from './compaction-conformance-checks';
import {
  CONFORMANCE_SECTIONS,
  conformanceRequest,
  largeEntries,
  referenceProvider,
} from './compaction-conformance-fixtures';

/*
 * The README's usage example is a provider's test file: it runs here as written, with
 * `@keel/testing/vitest` pointing at the source and `./my-provider` at the reference provider, so
 * the kit registers its tests in this file.
 */
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
const kitSection = readme.slice(readme.indexOf('\n## Compaction conformance kit'));
const [usageExample = ''] = [...kitSection.matchAll(/```ts\n([\s\S]*?)```/g)].map(
  (match) => match[1] ?? '',
);
const exampleDir = join(packageDir, '.readme-kit-example');
mkdirSync(exampleDir, { recursive: true });
writeFileSync(
  join(exampleDir, 'my-provider.ts'),
  "export { referenceProvider as createMyProvider } from '../src/compaction-conformance-fixtures';\n",
);
const exampleFile = join(exampleDir, 'my-provider.test.ts');
writeFileSync(
  exampleFile,
  usageExample.replaceAll("from '@keel/testing/vitest'", "from '../src/vitest'"),
);
await import(/* @vite-ignore */ exampleFile);
afterAll(() => {
  rmSync(exampleDir, { recursive: true, force: true });
});

describe('the README usage example', () => {
  it('is a test file that runs the kit on a provider', () => {
    expect(usageExample).toContain("describeCompactionProviderConformance('my provider'");
    expect(usageExample).toContain("from '@keel/testing/vitest'");
  });
});

describe('conformance fixtures', () => {
  it('builds a large input of about the requested size', () => {
    const chars = largeEntries(50_000).reduce(
      (sum, entry) => sum + JSON.stringify(entry.content).length,
      0,
    );
    expect(chars / 4).toBeGreaterThanOrEqual(50_000);
    expect(chars / 4).toBeLessThan(52_000);
  });

  it('lists the identifiers in the instructions as @keel/compaction does', () => {
    const request = conformanceRequest([], {
      signal: new AbortController().signal,
      budgetTokens: 100,
      requiredIdentifiers: ['a/b.ts', 'toolu_1'],
    });
    expect(request.instructions).toContain(
      'Copy each of these identifiers verbatim into the summary: a/b.ts toolu_1',
    );
    expect(request.requiredSections).toEqual(CONFORMANCE_SECTIONS);
  });
});

/** A provider built from `summarize`, for the checks to judge. */
function providerOf(summarize: CompactionProvider['summarize']): CompactionProvider {
  return { specificationVersion: 'v1', id: 'under-test', summarize };
}

function runCheck(
  name: string,
  provider: CompactionProvider,
  overrides: Partial<ConformanceCheckContext> = {},
): Promise<void> {
  const check = compactionProviderChecks.find((candidate) => candidate.name === name);
  if (check === undefined) throw new Error(`no check named ${name}`);
  const context: ConformanceCheckContext = {
    createProvider: () => provider,
    strict: true,
    budgetTokens: 2000,
    largeInputTokens: 20_000,
    estimateTokens: (text) => Math.ceil(text.length / 4),
    ...overrides,
  };
  return check.run(context);
}

/** Answers well-formed summaries but never looks at its signal. */
function ignoresSignal(): CompactionProvider {
  const good = referenceProvider();
  return providerOf(async (request) => {
    await new Promise((resolve) => setImmediate(resolve));
    return good.summarize({ ...request, signal: new AbortController().signal });
  });
}

describe('the kit fails providers that break the contract', () => {
  it('passes the reference provider on every check', async () => {
    for (const check of compactionProviderChecks) await runCheck(check.name, referenceProvider());
  });

  it.each([
    [
      'declares specificationVersion "v1", a non-empty id and summarize()',
      { ...referenceProvider(), id: 'builtin:mine' },
    ],
    [
      'returns a non-empty summary for a real conversation',
      providerOf(async () => ({ summary: '  ' })),
    ],
    [
      'returns a non-empty summary for a real conversation',
      providerOf(async () => ({ summary: '## Goal\n- only a goal' })),
    ],
    [
      'updates a previous summary instead of dropping it',
      providerOf(async (request) =>
        referenceProvider().summarize({
          ...request,
          requiredIdentifiers: request.requiredIdentifiers.slice(1),
        }),
      ),
    ],
    [
      'handles empty input without throwing',
      providerOf(async (request) => {
        if (request.entries.length === 0) throw new Error('nothing to summarize');
        return { summary: 'x' };
      }),
    ],
    [
      'handles tool_use / tool_result pairs, errors included',
      providerOf(async (request) => {
        if (
          request.entries.some((entry) =>
            entry.content.some((block) => block.type === 'tool_result'),
          )
        ) {
          throw new Error('cannot read tool results');
        }
        return referenceProvider().summarize(request);
      }),
    ],
    [
      'keeps a large input within the budget',
      providerOf(async (request) => ({ summary: 'x'.repeat(request.entries.length * 1000) })),
    ],
    ['rejects when the signal is already aborted', ignoresSignal()],
    ['rejects when the signal aborts after the call started', ignoresSignal()],
    [
      'rejects when the signal aborts after the call started',
      providerOf(async (request) => {
        await new Promise((resolve) => setImmediate(resolve));
        if (request.signal.aborted) throw new Error('some unrelated failure');
        return { summary: 'x' };
      }),
    ],
    [
      'leaves no unhandled rejections behind',
      providerOf(async (request) => {
        void Promise.reject(new Error('forgotten background work'));
        return referenceProvider().summarize(request);
      }),
    ],
  ] as const)('fails: %s', async (name, provider) => {
    await expect(runCheck(name, provider)).rejects.toThrow();
  });
});

describe('the budget is measured with the estimate the kit is given', () => {
  // 3 000 Japanese characters: 750 tokens at four characters per token, about 3 000 as
  // @keel/compaction counts them
  const japanese = providerOf(async () => ({ summary: 'の'.repeat(3000) }));
  const oneTokenPerCharacter = (text: string): number => text.length;

  it('characters / 4 by default', async () => {
    await runCheck('keeps a large input within the budget', japanese);
  });

  it('the given estimate when there is one', async () => {
    await expect(
      runCheck('keeps a large input within the budget', japanese, {
        estimateTokens: oneTokenPerCharacter,
      }),
    ).rejects.toThrow();
  });
});
