import type { ModelTarget } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { type BudgetLimits, budgetKey, createBudgetLedger, type TurnBudgets } from '../src/index';
import { createHarness, type Harness, keyOf } from './harness';

// Provider budgets (issue 24): a target over budget is held back like a cooling profile.

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Budgets by `providerId/model#profileId`, in a ledger on the harness's fake clock. */
function budgets(limits: Record<string, BudgetLimits>): TurnBudgets {
  return {
    ledger: createBudgetLedger({ clock: { now: () => harness?.clock.now() ?? 0 } }),
    budgetOf(target: ModelTarget) {
      const key = budgetKey(target);
      const found = limits[key];
      return found === undefined ? undefined : { key, limits: found };
    },
  };
}

const oneProfile = [
  { id: 'anthropic', profiles: [{ id: 'k1' }] },
  { id: 'backup', profiles: [{ id: 'b1' }] },
];

describe('a target over budget', () => {
  it('rotates to another profile of the model with budget left, and says so', async () => {
    harness = await createHarness({
      overrides: { budgets: budgets({ 'anthropic/primary#k1': { rpm: 1 } }) },
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'one' });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's2', input: 'two' });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'anthropic/primary' });
    expect(harness.sent().map((request) => request.apiKey)).toEqual([
      keyOf({ providerId: 'anthropic', profileId: 'k1' }),
      keyOf({ providerId: 'anthropic', profileId: 'k2' }),
    ]);
    expect(outcome.attempts.map((attempt) => [attempt.outcome, attempt.decision])).toEqual([
      ['skipped', 'rotate_profile'],
      ['ok', undefined],
    ]);
    expect(outcome.attempts[0]?.retryAfterMs).toBe(61_000);
  });

  it('falls back to another model when its only profile is over budget', async () => {
    harness = await createHarness({
      providers: oneProfile,
      overrides: { budgets: budgets({ 'anthropic/primary#k1': { rpm: 1 } }) },
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'one' });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's2', input: 'two' });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'backup/fallback' });
    expect(harness.decisions()).toEqual(['fallback_model']);
    expect(harness.sent().map((request) => request.model)).toEqual(['primary', 'fallback']);
  });

  it('waits within retry.maxWaitMs for budget to free, then sends', async () => {
    harness = await createHarness({
      models: { primary: 'anthropic/primary' },
      providers: oneProfile,
      overrides: {
        budgets: budgets({ 'anthropic/primary#k1': { rpm: 1 } }),
        retry: { maxWaitMs: 70_000 },
      },
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'one' });
    harness.clock.advance(30_000);
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's2', input: 'two' });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'anthropic/primary' });
    expect(harness.clock.sleeps).toEqual([31_000]); // until the first request's slice left
    expect(harness.decisions()).toEqual(['wait']);
    expect(harness.sent()).toHaveLength(2);
  });

  it('past retry.maxWaitMs, ends at once as a rate limit with the time until budget frees', async () => {
    harness = await createHarness({
      models: { primary: 'anthropic/primary' },
      providers: oneProfile,
      overrides: {
        budgets: budgets({ 'anthropic/primary#k1': { rpm: 1 } }),
        retry: { maxWaitMs: 10_000 },
      },
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'one' });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's2', input: 'two' });
    expect(outcome).toMatchObject({ kind: 'error', errorKind: 'rate_limit', retryAfterMs: 61_000 });
    expect(harness.clock.sleeps).toEqual([]);
    expect(harness.sent()).toHaveLength(1);
  });
});

describe('reserve and reconcile', () => {
  it('reserves the request size and max_tokens before it leaves, and keeps the usage reported after', async () => {
    const limits = { 'anthropic/primary#k1': { tpm: 100_000 } };
    const shared = budgets(limits);
    const reserved: number[] = [];
    const ledger = shared.ledger;
    shared.ledger = {
      ...ledger,
      async reserve(key, budget, tokens) {
        reserved.push(tokens);
        return ledger.reserve(key, budget, tokens);
      },
    };
    harness = await createHarness({
      providers: oneProfile,
      script: [
        { behavior: { type: 'ok', text: 'hi', usage: { inputTokens: 40, outputTokens: 2 } } },
      ],
      overrides: { budgets: shared, maxTokens: 500 },
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'x'.repeat(400) });
    // ~100 tokens of message and 500 of max_tokens, before the call…
    expect(reserved).toHaveLength(1);
    expect(reserved[0]).toBeGreaterThanOrEqual(600);
    expect(reserved[0]).toBeLessThan(650);
    // …and what the provider said it used, after.
    expect(await ledger.remaining('anthropic/primary#k1', { tpm: 100_000 })).toEqual({
      tpm: 100_000 - 42,
    });
  });

  it('a target held back by health after its reservation gives the reservation back', async () => {
    const shared = budgets({ 'anthropic/primary#k1': { rpm: 5 } });
    harness = await createHarness({
      providers: oneProfile,
      script: [{ behavior: { type: 'http-error', status: 401 }, match: { model: 'primary' } }],
      overrides: { budgets: shared },
    });
    await harness.orchestrator.runTurn({ sessionId: 's1', input: 'one' }); // 401 cools k1
    await harness.orchestrator.runTurn({ sessionId: 's2', input: 'two' }); // k1 held back by health
    expect(harness.sent().map((request) => request.model)).toEqual([
      'primary',
      'fallback',
      'fallback',
    ]);
    expect(await shared.ledger.remaining('anthropic/primary#k1', { rpm: 5 })).toEqual({ rpm: 4 });
  });

  it('a failing ledger never fails the turn: the request goes unbudgeted', async () => {
    harness = await createHarness({
      overrides: {
        budgets: {
          ledger: {
            reserve: () => Promise.reject(new Error('database down')),
            reconcile: () => Promise.reject(new Error('database down')),
            cancel: () => Promise.reject(new Error('database down')),
            record: () => Promise.reject(new Error('database down')),
            remaining: () => Promise.reject(new Error('database down')),
          },
          budgetOf: (target) => ({ key: budgetKey(target), limits: { rpm: 1 } }),
        },
      },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'one' });
    expect(outcome).toMatchObject({ kind: 'reply', model: 'anthropic/primary' });
  });
});
