/**
 * What a call does after a failed attempt: the decision table of `@keel/orchestrator` (its README,
 * "Decisions") for one model call. The orchestrator keeps its `decide` internal and turn-shaped
 * (compaction, session takeover), so this is its small equivalent over the same kinds and
 * defaults; a context overflow, which a call cannot compact, falls over to the next model.
 */
import type { ErrorClassification } from '@keel/error-classification';
import type { ErrorKind, ModelTarget } from '@keel/spec';
import type { AttemptPlan } from './attempt-plan';

export type Decision =
  | { label: 'retry_same'; delayMs: number }
  | { label: 'rotate_profile' }
  | { label: 'fallback_model' }
  | { label: 'wait'; delayMs: number }
  /** Nothing usable is left in this pass: wait for the shortest cooldown, or end. */
  | { label: 'exhausted' }
  | { label: 'final'; outcome: 'error' | 'aborted' };

export interface DecideSettings {
  maxRetries: number;
  maxWaitMs: number;
  maxWaits: number;
  baseDelayMs: number;
  maxDelayMs: number;
  rateLimitCooldownMs: number;
}

export interface DecideContext {
  classification: ErrorClassification;
  target: ModelTarget;
  plan: AttemptPlan;
  waits: number;
  settings: DecideSettings;
  random: () => number;
  /** The call gives up on the model for overload after its rotation: health may open its breaker. */
  onOverloadGiveUp(retryAfterMs: number | undefined): void;
}

/** A silent route is not waited for on the same model while another model is left. */
const SILENT: ReadonlySet<ErrorKind> = new Set(['timeout']);

const TRANSIENT: ReadonlySet<ErrorKind> = new Set([
  'connection',
  'timeout',
  'provider_abort',
  'server_error',
]);

/**
 * The wait before retry number `retry` (1-based): the provider's `retry-after` when given, else
 * `base · 2^(retry−1)` capped at `max`, with equal jitter.
 */
export function backoffDelay(
  retry: number,
  retryAfterMs: number | undefined,
  settings: Pick<DecideSettings, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number,
): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const exponential = Math.min(
    settings.maxDelayMs,
    settings.baseDelayMs * 2 ** Math.max(0, retry - 1),
  );
  return Math.round(exponential / 2 + random() * (exponential / 2));
}

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
    if (SILENT.has(kind)) return fallBack(plan, target);
    return restAndFallBack(plan, target, restFor(context));
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
      return restAndFallBack(plan, target, restFor(context));
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
    case 'context_overflow':
      return fallBack(plan, target);
    case 'caller_abort':
      return { label: 'final', outcome: 'aborted' };
    default:
      return { label: 'final', outcome: 'error' };
  }
}

function restFor(context: DecideContext): number {
  return backoffDelay(1, context.classification.retryAfterMs, context.settings, context.random);
}

function restAndFallBack(plan: AttemptPlan, target: ModelTarget, restMs: number): Decision {
  plan.restModel(target, restMs);
  return plan.next() === undefined ? { label: 'exhausted' } : { label: 'fallback_model' };
}

function fallBack(plan: AttemptPlan, target: ModelTarget, retryInMs?: number): Decision {
  plan.dropModel(target, retryInMs);
  return plan.next() === undefined ? { label: 'exhausted' } : { label: 'fallback_model' };
}
