import { readFile } from 'node:fs/promises';
import type { ModelRouter, SessionFenceFactory, SessionStorage } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { createOrchestrator, type OrchestratorOptions, type ProviderProfiles } from '../src/index';

/** An orchestrator only to read its ceiling: no port is ever called. */
function ceilingOf(
  providers: ProviderProfiles[],
  models: OrchestratorOptions['models'],
  extra: Partial<OrchestratorOptions> = {},
): number {
  const unused = () => {
    throw new Error('not used');
  };
  return createOrchestrator({
    storage: unused as unknown as SessionStorage,
    fences: unused as unknown as SessionFenceFactory,
    router: { connect: unused } as unknown as ModelRouter,
    providers,
    models,
    ...extra,
  }).requestCeiling;
}

const profiles = (id: string, count: number): ProviderProfiles => ({
  id,
  profiles: Array.from({ length: count }, (_, index) => ({ id: `${id}${index + 1}` })),
});

/** The README's rows, in order, as the configurations they describe. */
const ROWS: Array<{ describes: RegExp; ceiling: () => number }> = [
  {
    describes:
      /^defaults \(16 steps, 1 retry, 2 waits, 2 switches\), one provider with 1 profile, no fallback$/,
    ceiling: () => ceilingOf([profiles('a', 1)], { primary: 'a/m' }),
  },
  {
    describes: /^defaults, a provider with 2 profiles and a fallback with 1$/,
    ceiling: () =>
      ceilingOf([profiles('a', 2), profiles('b', 1)], { primary: 'a/m', fallbacks: ['b/f'] }),
  },
  {
    describes: /^the same with a compactor \(the quick start\)$/,
    ceiling: () =>
      ceilingOf(
        [profiles('a', 2), profiles('b', 1)],
        { primary: 'a/m', fallbacks: ['b/f'] },
        { compactor: { compact: async () => ({ status: 'skipped', reason: 'not-needed' }) } },
      ),
  },
  {
    describes: /^defaults, 3 profiles and one fallback with 1 profile$/,
    ceiling: () =>
      ceilingOf([profiles('a', 3), profiles('b', 1)], { primary: 'a/m', fallbacks: ['b/f'] }),
  },
];

async function readmeRows(): Promise<Array<{ configuration: string; sum: string; value: number }>> {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('### The request ceiling'));
  const table = section.slice(section.indexOf('| configuration | ceiling |'));
  const lines = table.split('\n').slice(2);
  const end = lines.findIndex((line) => !line.startsWith('|'));
  return lines.slice(0, end < 0 ? lines.length : end).map((line) => {
    const [configuration = '', cell = ''] = line
      .split('|')
      .slice(1, -1)
      .map((part) => part.trim());
    const match = /^(.*) = \*\*(\d+)\*\*$/.exec(cell);
    if (match === null) throw new Error(`unreadable ceiling cell: ${cell}`);
    return { configuration, sum: match[1]!, value: Number(match[2]) };
  });
}

/** `15 + 3 × (3 × 2 + 2)` → 39: sums of products, with parentheses. */
function evaluate(sum: string): number {
  let text = sum;
  for (let inner = /\(([^()]*)\)/.exec(text); inner !== null; inner = /\(([^()]*)\)/.exec(text))
    text = text.replace(inner[0], String(evaluate(inner[1]!)));
  return text
    .split('+')
    .map((term) => term.split('×').reduce((product, factor) => product * Number(factor.trim()), 1))
    .reduce((total, term) => total + term, 0);
}

describe('the README’s request ceiling table, every row', () => {
  it('each row’s configuration gives its printed ceiling, and its arithmetic adds up', async () => {
    const rows = await readmeRows();
    expect(rows).toHaveLength(ROWS.length);
    rows.forEach((row, index) => {
      const expected = ROWS[index]!;
      expect(row.configuration).toMatch(expected.describes);
      expect(evaluate(row.sum), row.sum).toBe(row.value);
      expect(expected.ceiling(), row.configuration).toBe(row.value);
    });
  });
});

describe('the ceiling formula, each term on its own', () => {
  // maxSteps − 1 + (P_selected + Σ P_chain) × ((1 + maxModelSwitches) × (1 + maxRetries) + maxWaits)
  //   + 1 with a compactor
  const formula = (o: {
    steps: number;
    waits: number;
    switches: number;
    selected: number;
    chain: number;
    retries: number;
    compacts?: boolean;
  }) =>
    o.steps -
    1 +
    (o.selected + o.chain) * ((1 + o.switches) * (1 + o.retries) + o.waits) +
    (o.compacts === true ? 1 : 0);
  const base = { steps: 16, waits: 2, switches: 2, selected: 0, chain: 3, retries: 1 };
  const providers = [profiles('a', 2), profiles('b', 1), profiles('c', 4)];
  const models = { primary: 'a/m', fallbacks: ['b/f'] };

  it.each([
    ['maxSteps 5', { maxSteps: 5 }, { steps: 5 }],
    ['retry.maxRetries 0', { retry: { maxRetries: 0 } }, { retries: 0 }],
    ['retry.maxRetries 3', { retry: { maxRetries: 3 } }, { retries: 3 }],
    ['retry.maxWaits 0', { retry: { maxWaits: 0 } }, { waits: 0 }],
    ['retry.maxWaits 5', { retry: { maxWaits: 5 } }, { waits: 5 }],
    ['maxModelSwitches 0', { maxModelSwitches: 0 }, { switches: 0 }],
    ['maxModelSwitches 4', { maxModelSwitches: 4 }, { switches: 4 }],
    [
      'a compactor (one overflow compaction retries the same target)',
      { compactor: { compact: async () => ({ status: 'skipped', reason: 'nothing-to-compact' }) } },
      { compacts: true },
    ],
  ] as const)('%s', (_name, options, terms) => {
    expect(ceilingOf(providers, models, options as Partial<OrchestratorOptions>)).toBe(
      formula({ ...base, ...terms }),
    );
  });

  it('a selectable model outside the chain adds the most profiles among them (P_selected), once', () => {
    expect(
      ceilingOf(providers, {
        ...models,
        settings: { 'c/x': {}, 'b/y': {}, 'a/m': { maxOutputTokens: 10 } },
      }),
    ).toBe(formula({ ...base, selected: 4 }));
  });

  it('the same model twice in the chain counts once', () => {
    expect(ceilingOf(providers, { primary: 'a/m', fallbacks: ['b/f', 'a/m'] })).toBe(formula(base));
  });
});
