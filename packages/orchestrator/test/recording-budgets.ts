import type { ModelTarget } from '@keel/spec';
import { budgetKey, createBudgetLedger, type TurnBudgets } from '../src/index';

/** Budgets (tpm 1 000 000 per target) whose ledger keeps the tokens each reservation asked for. */
export function recordingBudgets(reserved: number[]): TurnBudgets {
  const ledger = createBudgetLedger();
  return {
    ledger: {
      ...ledger,
      reserve(key, limits, tokens) {
        reserved.push(tokens);
        return ledger.reserve(key, limits, tokens);
      },
    },
    budgetOf: (target: ModelTarget) => ({ key: budgetKey(target), limits: { tpm: 1_000_000 } }),
  };
}
