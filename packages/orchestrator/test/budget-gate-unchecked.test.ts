// A ledger that fails to answer (a database down, its pool exhausted) never fails the turn: the
// request leaves without a reservation, and its attempt says so (`budget: 'unchecked'`), so a
// gateway can count what went past the budget (budget-gate.ts).
import type { ModelTarget } from '@keel/spec';
import { afterEach, describe, expect, it } from 'vitest';
import { budgetKey, createBudgetLedger, type TurnBudgets } from '../src/index';
import { recordedFences } from './call-once-fence-calls';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A budget on `anthropic/primary#k1` whose ledger's reservations fail while `failing` is set. */
function flakyBudgets(state: { failing: boolean }): TurnBudgets {
  const ledger = createBudgetLedger({ clock: { now: () => harness?.clock.now() ?? 0 } });
  return {
    ledger: {
      ...ledger,
      reserve(key, limits, tokens) {
        if (state.failing) return Promise.reject(new Error('connection timeout'));
        return ledger.reserve(key, limits, tokens);
      },
    },
    budgetOf: (target: ModelTarget) =>
      target.profileId === 'k1' ? { key: budgetKey(target), limits: { rpm: 1 } } : undefined,
  };
}

describe('a budget ledger that fails', () => {
  it('lets the request go, and the attempt says its budget was unchecked', async () => {
    const state = { failing: true };
    harness = await createHarness({
      providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
      models: { primary: 'anthropic/primary' },
      overrides: { budgets: flakyBudgets(state) },
    });
    const unchecked = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'one' });
    expect(unchecked.kind).toBe('reply');
    expect(unchecked.attempts.map((attempt) => attempt.budget)).toEqual(['unchecked']);

    // Answering again, the ledger counts the next request: granted, nothing said.
    state.failing = false;
    const checked = await harness.orchestrator.runTurn({ sessionId: 's2', input: 'two' });
    expect(checked.kind).toBe('reply');
    expect(checked.attempts[0]).not.toHaveProperty('budget');
    expect(harness.sent()).toHaveLength(2);
  });

  it('marks nothing on an attempt whose request never left (the fence could not let go)', async () => {
    let failures = 1;
    harness = await createHarness({
      providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
      models: { primary: 'anthropic/primary' },
      overrides: {
        budgets: flakyBudgets({ failing: true }),
        fences: recordedFences(
          () => harness!.storage,
          [],
          () => {
            if (failures === 0) return undefined;
            failures -= 1;
            return new Error('the lease could not be let go');
          },
        ),
      },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'one' });
    const [unsent, ...rest] = outcome.attempts;
    expect(unsent?.requestSent).toBe(false);
    expect(unsent).not.toHaveProperty('budget');
    // Whatever came after it and left, left unbudgeted, and says so.
    for (const attempt of rest.filter((each) => each.requestSent))
      expect(attempt.budget).toBe('unchecked');
  });

  it('marks nothing on a target without a budget, or one whose ledger answered', async () => {
    harness = await createHarness({
      providers: [{ id: 'anthropic', profiles: [{ id: 'k2' }] }],
      models: { primary: 'anthropic/primary' },
      overrides: { budgets: flakyBudgets({ failing: true }) },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 's1', input: 'one' });
    expect(outcome.kind).toBe('reply');
    expect(outcome.attempts[0]).not.toHaveProperty('budget');
  });
});
