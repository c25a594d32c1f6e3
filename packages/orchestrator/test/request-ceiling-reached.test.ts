import { createProviderHealth } from '@keel/provider-health';
import { type MockBehavior, mockFaults } from '@keel/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProviderProfiles } from '../src/index';
import { createHarness } from './harness';

/**
 * The request ceiling is the true bound: for a drawn configuration, the fault sequence that spends
 * every budget (each plan's retries, each pass's one failure per profile, every wait, every live
 * switch, every step but the last) makes the turn send exactly `orchestrator.requestCeiling`
 * requests. All faults ask for `retry-after: 0`, so fake time never has to move; provider health
 * is given a breaker that never opens, so no target is skipped.
 */
const SEED = Number(process.env['KEEL_FUZZ_SEED'] ?? 20261201);

interface Config {
  /** Profiles of `anthropic` (the primary and the models outside the chain). */
  primaryProfiles: number;
  /** Profiles of `backup` (the fallback), 0 for no fallback. */
  fallbackProfiles: number;
  /** The session selects models outside the chain (`models.settings` keys) instead. */
  outside: boolean;
  maxRetries: number;
  maxWaits: number;
  maxModelSwitches: number;
  maxSteps: number;
}

const config: fc.Arbitrary<Config> = fc
  .record({
    primaryProfiles: fc.integer({ min: 1, max: 3 }),
    fallbackProfiles: fc.integer({ min: 0, max: 2 }),
    outside: fc.boolean(),
    maxRetries: fc.integer({ min: 0, max: 2 }),
    maxWaits: fc.integer({ min: 0, max: 2 }),
    maxModelSwitches: fc.integer({ min: 0, max: 2 }),
    maxSteps: fc.integer({ min: 1, max: 3 }),
  })
  // Switching between the chain's models needs two of them.
  .filter((c) => c.outside || c.fallbackProfiles > 0 || c.maxModelSwitches === 0);

const serverError: MockBehavior = {
  type: 'http-error',
  status: 500,
  headers: { 'retry-after': '0' },
};
const rateLimited = mockFaults.rateLimited({ retryAfterSeconds: 0 });
const lookup = { name: 'lookup', input: {} };

/** The models a selection's plan tries, in order, with their profile counts. */
function chainOf(selection: string, c: Config): Array<{ model: string; profiles: number }> {
  const references = [selection, 'anthropic/primary'];
  if (c.fallbackProfiles > 0) references.push('backup/fallback');
  return [...new Set(references)].map((model) => ({
    model,
    profiles: model.startsWith('anthropic/') ? c.primaryProfiles : c.fallbackProfiles,
  }));
}

/**
 * The selections, plan by plan: the first, then one per live switch, each another model (outside
 * the chain when `outside`, so every plan has the most profiles).
 */
function selectionsOf(c: Config): string[] {
  const pair = c.outside
    ? ['anthropic/x', 'anthropic/y']
    : ['anthropic/primary', 'backup/fallback'];
  return Array.from({ length: 1 + c.maxModelSwitches }, (_, index) => pair[index % 2]!);
}

/** One pass over a plan: every profile but each model's last is rate limited, the last rests it. */
function pass(c: Config, selection: string, retries: number): MockBehavior[] {
  return chainOf(selection, c).flatMap(({ profiles }) =>
    Array.from({ length: profiles }, (_, index) => [
      ...Array.from({ length: retries }, () => serverError),
      index === profiles - 1 ? serverError : rateLimited,
    ]).flat(),
  );
}

/** The script that spends every budget, and the attempt numbers at which to switch models. */
function worstCase(c: Config): { script: MockBehavior[]; switchAt: Map<number, string> } {
  const script: MockBehavior[] = Array.from({ length: c.maxSteps - 1 }, () => ({
    type: 'ok',
    toolCalls: [lookup],
  }));
  const switchAt = new Map<number, string>();
  const selections = selectionsOf(c);
  selections.forEach((selection, plan) => {
    script.push(...pass(c, selection, c.maxRetries));
    const next = selections[plan + 1];
    // The plan's last failure comes with the next switch: the new plan starts afresh.
    if (next !== undefined) switchAt.set(script.length, next);
  });
  const last = selections.at(-1)!;
  for (let wait = 0; wait < c.maxWaits; wait += 1) script.push(...pass(c, last, 0));
  return { script, switchAt };
}

describe('the request ceiling is reached exactly by the fault sequence that spends every budget', () => {
  it('for every drawn configuration, the turn sends exactly orchestrator.requestCeiling requests', {
    timeout: 120_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(config, async (c) => {
        const providers: ProviderProfiles[] = [
          {
            id: 'anthropic',
            profiles: Array.from({ length: c.primaryProfiles }, (_, i) => ({ id: `k${i + 1}` })),
          },
          ...(c.fallbackProfiles === 0
            ? []
            : [
                {
                  id: 'backup',
                  profiles: Array.from({ length: c.fallbackProfiles }, (_, i) => ({
                    id: `b${i + 1}`,
                  })),
                },
              ]),
        ];
        const { script, switchAt } = worstCase(c);
        let attempts = 0;
        const harness = await createHarness({
          providers,
          models: {
            primary: 'anthropic/primary',
            ...(c.fallbackProfiles === 0 ? {} : { fallbacks: ['backup/fallback'] }),
            ...(c.outside ? { settings: { 'anthropic/x': {}, 'anthropic/y': {} } } : {}),
          },
          tools: {
            definitions: [{ name: 'lookup', inputSchema: { type: 'object' } }],
            async run() {
              return { content: 'result' };
            },
          },
          hooks: {
            async beforeModelCall() {
              attempts += 1;
              const model = switchAt.get(attempts);
              if (model !== undefined) await harness.orchestrator.selectModel('s1', model);
              return undefined;
            },
          },
          overrides: {
            maxSteps: c.maxSteps,
            maxModelSwitches: c.maxModelSwitches,
            retry: { maxRetries: c.maxRetries, maxWaits: c.maxWaits },
            health: createProviderHealth({ minFailures: 1_000_000 }),
          },
        });
        try {
          if (c.outside) await harness.orchestrator.selectModel('s1', selectionsOf(c)[0]!);
          harness.mock.enqueue(...script);
          const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hi' });
          const labels = harness.decisions();
          const story = `${JSON.stringify(c)}: ${outcome.kind} ${outcome.errorKind}, ${labels.join(' ')}`;
          expect(harness.mock.pending(), story).toBe(0);
          expect(harness.sent(), story).toHaveLength(script.length);
          expect(script.length, story).toBe(harness.orchestrator.requestCeiling);
          // Ended by the decision table (the last model resting, nothing left), never by the
          // ceiling's own check: the turn's faults alone spend exactly the ceiling.
          expect(outcome, story).toMatchObject({ kind: 'error', errorKind: 'server_error' });
          expect(
            harness.events.filter((e) => e.type === 'decision' && e.reason === 'request_ceiling'),
            story,
          ).toEqual([]);
          expect(
            labels.filter((label) => label === 'switch_model'),
            story,
          ).toHaveLength(c.maxModelSwitches);
          expect(
            labels.filter((label) => label === 'wait'),
            story,
          ).toHaveLength(c.maxWaits);
        } finally {
          await harness.close();
        }
      }),
      { seed: SEED, numRuns: Number(process.env['KEEL_FUZZ_RUNS'] ?? 20) },
    );
  });
});
