// A reservation whose request never left is given back whole (run-model-call.ts): when building
// the request fails (a `beforeModelCall` hook that throws), the budget is as it was before.
import type { ModelTarget } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { budgetKey, createBudgetLedger, type TurnBudgets } from '../src/index';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a budget reservation', () => {
  it('is given back when the attempt failed before its request left', async () => {
    const budgets: TurnBudgets = {
      ledger: createBudgetLedger({ clock: { now: () => harness?.clock.now() ?? 0 } }),
      budgetOf: (target: ModelTarget) => ({ key: budgetKey(target), limits: { rpm: 5 } }),
    };
    harness = await createHarness({
      providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
      models: { primary: 'anthropic/primary' },
      hooks: {
        beforeModelCall() {
          throw new Error('the hook broke');
        },
      },
      overrides: { budgets },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'hello' });
    expect(outcome.kind).toBe('error');
    expect(harness.sent()).toEqual([]);
    expect(await budgets.ledger.remaining('anthropic/primary#k1', { rpm: 5 })).toEqual({ rpm: 5 });
  });
});
