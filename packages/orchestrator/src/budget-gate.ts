/**
 * Provider budgets in a turn: before a request leaves, its target's budget (requests and
 * estimated tokens) is reserved in the ledger, and a target over budget is held back like a cooling
 * profile (rotate, fall back, wait within `retry.maxWaitMs`, else end with `retryAfterMs`); after
 * the attempt, the reservation is corrected with the usage the provider reported.
 */
import type { BudgetLedger, BudgetLimits, BudgetReservation } from '@keel/provider-health';
import type { Message, ModelTarget, Usage } from '@keel/spec';
import { modelKey } from './model-chain';
import { modelContextOf } from './model-context-of';
import type { LiveTurn, TurnRuntime } from './turn-runtime';

export type {
  BudgetDecision,
  BudgetLedger,
  BudgetLedgerOptions,
  BudgetLimits,
  BudgetRemaining,
  BudgetReservation,
} from '@keel/provider-health';
/**
 * `@keel/provider-health`'s in-memory ledger (one gateway) and a provider budget's default pace
 * (`burst`, `tpmBurst`: 3 s worth), re-exported for the gateway's use.
 */
export { createBudgetLedger, pacedBudgetLimits } from '@keel/provider-health';

/** Provider budgets for an orchestrator: the shared ledger and the budget of each target. */
export interface TurnBudgets {
  /** In memory (`createBudgetLedger`) or shared by every gateway (PostgreSQL). */
  ledger: BudgetLedger;
  /**
   * The budget a request to `target` counts against: its ledger key (targets that share a budget
   * share a key) and limits; `undefined` when the target has none.
   */
  budgetOf(target: ModelTarget): { key: string; limits: BudgetLimits } | undefined;
}

/** The ledger key of one profile and model: `providerId/model#profileId`. */
export function budgetKey(target: ModelTarget): string {
  return `${target.providerId}/${target.model}#${target.profileId}`;
}

export type BudgetGate =
  | { type: 'go'; reservation: BudgetReservation | undefined; unchecked?: true }
  | { type: 'over'; waitMs: number };

/**
 * Reserves the target's budget for one request, or says how long until it fits. A ledger that
 * fails (a database down) never fails the turn: the request goes unbudgeted, and says so
 * (`unchecked`, which the attempt's record carries as `budget: 'unchecked'`).
 */
export async function reserveBudget(
  runtime: TurnRuntime,
  turn: LiveTurn,
  target: ModelTarget,
): Promise<BudgetGate> {
  const budget = runtime.budgets?.budgetOf(target);
  if (runtime.budgets === undefined || budget === undefined) {
    return { type: 'go', reservation: undefined };
  }
  const tokens = estimateRequestTokens(runtime, turn, target);
  try {
    const decision = await runtime.budgets.ledger.reserve(budget.key, budget.limits, tokens);
    if (decision.granted) return { type: 'go', reservation: decision.reservation };
    return { type: 'over', waitMs: decision.waitMs };
  } catch {
    return { type: 'go', reservation: undefined, unchecked: true };
  }
}

/**
 * After an attempt: corrects the reservation with the reported usage (input + output). An attempt
 * that sent nothing gives its reservation back; one with no usage keeps the estimate.
 */
export async function settleBudget(
  runtime: TurnRuntime,
  reservation: BudgetReservation | undefined,
  attempt: { sent: boolean; usage: Usage | undefined },
): Promise<void> {
  if (reservation === undefined || runtime.budgets === undefined) return;
  const { ledger } = runtime.budgets;
  try {
    if (!attempt.sent) await ledger.cancel(reservation);
    else if (attempt.usage !== undefined) {
      await ledger.reconcile(reservation, attempt.usage.inputTokens + attempt.usage.outputTokens);
    }
  } catch {
    // Bookkeeping only: the estimate stands.
  }
}

/**
 * The tokens a request may use: its size (about 4 characters a token over the messages, the
 * system prompt and the tools, as sent) plus the output it may produce (`maxTokens`).
 */
export function estimateRequestTokens(
  runtime: TurnRuntime,
  turn: LiveTurn,
  target: ModelTarget,
): number {
  const { settings } = runtime;
  const request = turn.request;
  let chars = settings.system?.length ?? 0;
  if (request !== undefined) {
    chars += (request.system?.length ?? 0) + messageChars(request.messages);
    if (request.tools !== undefined) chars += JSON.stringify(request.tools).length;
  } else {
    const context = modelContextOf(turn.entries, turn.folded);
    chars += (context.summary?.length ?? 0) + messageChars(context.messages);
    if (runtime.tools !== undefined) chars += JSON.stringify(runtime.tools.definitions).length;
  }
  const maxTokens =
    request?.maxTokens ??
    settings.modelSettings.get(modelKey(target))?.maxOutputTokens ??
    settings.maxTokens ??
    0;
  return Math.ceil(chars / 4) + maxTokens;
}

function messageChars(messages: readonly Message[]): number {
  let chars = 0;
  for (const message of messages) chars += JSON.stringify(message.content).length;
  return chars;
}
