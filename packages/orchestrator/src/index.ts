export type { BackoffOptions } from './backoff';
export type {
  BudgetDecision,
  BudgetLedger,
  BudgetLedgerOptions,
  BudgetLimits,
  BudgetRemaining,
  BudgetReservation,
  TurnBudgets,
} from './budget-gate';
export { budgetKey, createBudgetLedger, pacedBudgetLimits } from './budget-gate';
export type { BuildContextOptions, ModelContext } from './build-context';
export { buildModelContext } from './build-context';
export type { Orchestrator, RunTurnRequest } from './create-orchestrator';
export { createOrchestrator } from './create-orchestrator';
export { definePlugin } from './define-plugin';
export { IncompleteAttemptError } from './incomplete-attempt-error';
export type { ModelRef, ProviderProfiles } from './model-chain';
export { parseModelRef } from './model-chain';
export type {
  OrchestratorConfigErrorOptions,
  OrchestratorErrorOptions,
} from './orchestrator-error';
export { OrchestratorConfigError, OrchestratorError } from './orchestrator-error';
export type {
  CallTimeouts,
  Classification,
  ModelSettings,
  OrchestratorOptions,
  RetryOptions,
} from './orchestrator-options';
export type { ProviderHealthOptions } from './provider-health';
export { createProviderHealth } from './provider-health';
export { MISSING_TOOL_RESULT } from './repair-tool-pairing';
export { DEFAULT_MAX_REPLY_BYTES, ReplyTooLargeError } from './reply-cap';
export type { RunCallRequest } from './run-call';
export { createSystemClock } from './system-clock';
export type { TurnCopy } from './turn-copy';
export { DEFAULT_TURN_COPY } from './turn-copy';
