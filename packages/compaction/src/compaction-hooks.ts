import type { CompactionTrigger } from '@keel/spec';
import type { CompactionPlan } from './plan-compaction';

export interface BeforeCompactContext {
  sessionId: string;
  trigger: CompactionTrigger;
  plan: CompactionPlan;
  /** Identifiers any summary must keep verbatim. */
  requiredIdentifiers: readonly string[];
  /** Summary budget in estimated tokens. */
  budgetTokens: number;
  signal: AbortSignal;
}

/** `cancel`: skip this compaction; `supply`: use this summary (validated like any producer's). */
export type BeforeCompactResult =
  | undefined
  | { action: 'cancel'; reason?: string }
  | { action: 'supply'; summary: string };

/**
 * Hooks that may change what a compaction does. To observe one, listen to its events
 * (`onEvent`, `subscribe`): `compaction-end` carries the committed entry.
 */
export interface CompactionHooks {
  /**
   * Runs after the plan is made and before any producer, only when there is something to
   * compact. May cancel (`compact()` resolves `skipped: cancelled`, the reason as its `detail`),
   * or supply a summary: a supplied summary is validated like any other and, when rejected, the
   * configured producers run as if no summary had been supplied. May throw: the error propagates
   * out of `compact()` and nothing is written. Should honour `context.signal`: once it aborts,
   * `compact()` stops waiting for the hook and rejects.
   */
  beforeCompact?(
    context: BeforeCompactContext,
  ): BeforeCompactResult | undefined | Promise<BeforeCompactResult | undefined>;
}
