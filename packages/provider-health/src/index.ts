export type { BudgetLedger, BudgetLedgerOptions } from './budget-ledger';
export { createBudgetLedger } from './budget-ledger';
export type {
  BudgetDecision,
  BudgetLimitName,
  BudgetLimits,
  BudgetRemaining,
  BudgetReservation,
  BudgetRow,
  BudgetSlice,
  BudgetWindowOptions,
  BudgetWindows,
} from './budget-rules';
export {
  budgetRemaining,
  budgetSliceMs,
  cancelBudget,
  checkBudgetLimits,
  DAY_SLICES,
  emptyBudgetRow,
  MINUTE_SLICES,
  pacedBudgetLimits,
  reconcileBudget,
  recordBudget,
  reserveBudget,
  resolveBudgetWindows,
} from './budget-rules';
export type { HealthConfigErrorOptions } from './health-config-error';
export { HealthConfigError } from './health-config-error';
export type {
  BreakerChange,
  BreakerRow,
  BreakerStep,
  HealthRuleOptions,
  HealthRules,
  WindowSlice,
} from './health-rules';
export {
  applyReport,
  closedBreaker,
  countOutcome,
  createBreakerStep,
  profileCooldown,
  resolveHealthRules,
  touchesBreaker,
  WINDOW_SLICES,
  windowCounts,
  windowSliceMs,
} from './health-rules';
export type { ProviderHealthOptions } from './provider-health';
export { createProviderHealth } from './provider-health';
