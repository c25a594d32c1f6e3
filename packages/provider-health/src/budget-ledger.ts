/**
 * The budget ledger: rate and token budgets keyed by any string (a provider profile and model, a
 * client key), as the port the orchestrator and the gateway call, and its in-memory implementation
 * on an injected clock (one gateway). `@keel/session-store-postgres` implements the same port over
 * PostgreSQL for several gateways.
 */
import type { Clock } from '@keel/spec';
import {
  type BudgetDecision,
  type BudgetLimits,
  type BudgetRemaining,
  type BudgetReservation,
  type BudgetRow,
  type BudgetWindowOptions,
  budgetRemaining,
  cancelBudget,
  checkBudgetLimits,
  emptyBudgetRow,
  reconcileBudget,
  recordBudget,
  reserveBudget,
  resolveBudgetWindows,
} from './budget-rules';

/** Rate and token budgets by key; every method may be called concurrently. */
export interface BudgetLedger {
  /**
   * Before a request: reserves one request and `tokens` estimated tokens (request size +
   * `max_tokens`) under `key`'s `limits`, or says which limit is exhausted and in how many ms the
   * request would fit. Limits travel with each call, so a config reload applies at once.
   */
  reserve(key: string, limits: BudgetLimits, tokens: number): Promise<BudgetDecision>;
  /** After the request: corrects the reservation with the tokens really used (input + output). */
  reconcile(reservation: BudgetReservation, usedTokens: number): Promise<void>;
  /** Takes a reservation back whole (request and tokens) when its request was never sent. */
  cancel(reservation: BudgetReservation): Promise<void>;
  /**
   * Counts `usedTokens` under `key` now, with no request, for a request that has no reservation
   * here (another gateway admitted it and counted its request): the current minute and day, and a
   * paced `tpm`'s token pace (from `limits`).
   */
  record(key: string, limits: BudgetLimits, usedTokens: number): Promise<void>;
  /** What is left of each set limit under `key` now (for health pages and metrics). */
  remaining(key: string, limits: BudgetLimits): Promise<BudgetRemaining>;
}

export interface BudgetLedgerOptions extends BudgetWindowOptions {
  /** Where time comes from (only `now()` is read); default `Date.now()`. */
  clock?: Pick<Clock, 'now'>;
}

/** An in-memory `BudgetLedger` for one process; windows are checked when it is made. */
export function createBudgetLedger(options: BudgetLedgerOptions = {}): BudgetLedger {
  const clock = options.clock ?? { now: () => Date.now() };
  const windows = resolveBudgetWindows(options);
  const rows = new Map<string, BudgetRow>();

  function rowOf(key: string): BudgetRow {
    let row = rows.get(key);
    if (row === undefined) {
      row = emptyBudgetRow();
      rows.set(key, row);
    }
    return row;
  }

  return {
    async reserve(key, limits, tokens) {
      checkBudgetLimits(limits);
      return reserveBudget(rowOf(key), key, limits, tokens, windows, clock.now());
    },
    async reconcile(reservation, usedTokens) {
      const row = rows.get(reservation.key);
      if (row !== undefined) reconcileBudget(row, reservation, usedTokens);
    },
    async cancel(reservation) {
      const row = rows.get(reservation.key);
      if (row !== undefined) cancelBudget(row, reservation);
    },
    async record(key, limits, usedTokens) {
      recordBudget(rowOf(key), limits, usedTokens, windows, clock.now());
    },
    async remaining(key, limits) {
      const row = rows.get(key) ?? emptyBudgetRow();
      return budgetRemaining(row, limits, windows, clock.now());
    },
  };
}
