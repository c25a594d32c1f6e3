import type { ErrorKind, ModelTarget } from '@keel/spec';
import type { AttemptPlan } from './attempt-plan';
import { backoffDelay } from './backoff';
import { modelKey } from './model-chain';
import type { Classification } from './orchestrator-options';

/** What a turn does after a failed attempt. */
export type Decision =
  | { label: 'retry_same'; delayMs: number }
  | { label: 'rotate_profile' }
  | { label: 'fallback_model' }
  | { label: 'compact_and_retry' }
  | { label: 'wait'; delayMs: number }
  | { label: 'resend' }
  /** Nothing usable is left in this pass: wait for the shortest cooldown or end. */
  | { label: 'exhausted' }
  | { label: 'final'; outcome: 'error' | 'aborted' };

export interface DecideContext {
  classification: Classification;
  target: ModelTarget;
  plan: AttemptPlan;
  /** Compactions already run this turn. */
  compactions: number;
  canCompact: boolean;
  waits: number;
  settings: {
    maxRetries: number;
    maxWaitMs: number;
    maxWaits: number;
    rateLimitCooldownMs: number;
    baseDelayMs?: number;
    maxDelayMs?: number;
  };
  random: () => number;
  /** The declared context window of a model (`providerId/model`), when its settings give one. */
  contextWindowOf(modelKey: string): number | undefined;
  /** Reports that the turn gives up on the target's model for overload (opens its breaker). */
  onOverloadGiveUp(retryAfterMs: number | undefined): void;
}

/**
 * A silent route (no first output in time, a stalled stream, a call past its deadline) is not
 * tried again on the same model while another model is left: its time is better spent there.
 */
const SILENT: ReadonlySet<ErrorKind> = new Set(['timeout']);

const TRANSIENT: ReadonlySet<ErrorKind> = new Set([
  'connection',
  'timeout',
  'provider_abort',
  'server_error',
]);

/**
 * The decision table of `@keel/orchestrator` (README, "Decisions"). Updates the plan (blocked
 * profiles, given-up models) and returns the label to act on. Every path is bounded: retries per
 * target, one overload rotation per model, each profile once per pass, one compaction per turn.
 */
export function decide(context: DecideContext): Decision {
  const { classification, target, plan, settings } = context;
  const kind = classification.kind;
  if (SILENT.has(kind) && plan.hasOtherModel(target)) return fallBack(plan, target);
  if (TRANSIENT.has(kind)) {
    const count = plan.countRetry(target);
    if (count < settings.maxRetries) {
      const delayMs = backoffDelay(
        count + 1,
        classification.retryAfterMs,
        settings,
        context.random,
      );
      if (delayMs <= settings.maxWaitMs) return { label: 'retry_same', delayMs };
    }
    // A silent model is not waited for again: its next silence would cost as much.
    if (SILENT.has(kind)) return fallBack(plan, target);
    return restAndFallBack(plan, target, restFor(context, classification.retryAfterMs));
  }
  switch (kind) {
    case 'overloaded': {
      const rotatedBefore = plan.takeOverloadRotation(target);
      if (!rotatedBefore && plan.hasOtherProfile(target)) {
        plan.blockProfile(target);
        return { label: 'rotate_profile' };
      }
      const retryIn = classification.retryAfterMs ?? classification.cooldownMs;
      context.onOverloadGiveUp(retryIn);
      if (classification.cooldownMs !== undefined) return fallBack(plan, target, retryIn);
      return restAndFallBack(plan, target, restFor(context, classification.retryAfterMs));
    }
    case 'rate_limit': {
      const cooling =
        classification.retryAfterMs ?? classification.cooldownMs ?? settings.rateLimitCooldownMs;
      plan.blockProfile(target, cooling);
      if (plan.hasOtherProfile(target)) return { label: 'rotate_profile' };
      const wait = plan.shortestWait(target);
      if (wait !== undefined && wait <= settings.maxWaitMs && context.waits < settings.maxWaits)
        return { label: 'wait', delayMs: wait };
      return fallBack(plan, target);
    }
    case 'auth':
    case 'billing':
      plan.blockProfile(target);
      if (plan.hasOtherProfile(target)) return { label: 'rotate_profile' };
      return fallBack(plan, target);
    case 'model_not_found':
      return fallBack(plan, target);
    case 'context_overflow':
      if (context.canCompact && context.compactions === 0) return { label: 'compact_and_retry' };
      return toLargerWindow(plan, target, context.contextWindowOf);
    case 'session_takeover':
      return { label: 'resend' };
    case 'caller_abort':
      return { label: 'final', outcome: 'aborted' };
    // The store failed, not the model: no retry, no other model, never a takeover.
    case 'storage':
    case 'coordination':
    case 'invalid_request':
    case 'content_policy':
    case 'unknown':
      return { label: 'final', outcome: 'error' };
    default:
      return { label: 'final', outcome: 'error' };
  }
}

/**
 * The request is too large for the target's model and compaction cannot help (any more): gives
 * up on it and on every model whose declared window is not larger, so the same oversized request
 * never goes to a model that cannot take it; falls over to the first larger one left, else ends.
 */
export function toLargerWindow(
  plan: AttemptPlan,
  target: ModelTarget,
  contextWindowOf: (modelKey: string) => number | undefined,
): Decision {
  const current = contextWindowOf(modelKey(target)) ?? 0;
  for (const model of plan.chain) {
    const window = contextWindowOf(model.key);
    if (window === undefined || window <= current) plan.dropModel(model);
  }
  return plan.next() === undefined
    ? { label: 'final', outcome: 'error' }
    : { label: 'fallback_model' };
}

/**
 * How long a model given up on a transient fault rests before the turn's next pass may try it
 * again: its `retry-after`, else one backoff step.
 */
function restFor(context: DecideContext, retryAfterMs: number | undefined): number {
  return retryAfterMs ?? backoffDelay(1, undefined, context.settings, context.random);
}

/**
 * Falls over from a model whose fault may clear: it rests for this pass, and when nothing else
 * is left the turn may wait for it (within `retry.maxWaitMs` and `retry.maxWaits`) and try it
 * once more, rather than end on one unlucky answer.
 */
function restAndFallBack(plan: AttemptPlan, target: ModelTarget, restMs: number): Decision {
  plan.restModel(target, restMs);
  return plan.next() === undefined ? { label: 'exhausted' } : { label: 'fallback_model' };
}

function fallBack(plan: AttemptPlan, target: ModelTarget, retryInMs?: number): Decision {
  plan.dropModel(target, retryInMs);
  return plan.next() === undefined ? { label: 'exhausted' } : { label: 'fallback_model' };
}
