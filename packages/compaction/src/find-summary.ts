import type { CompactionAttempt, CompactionEvent, CompactionTrigger } from '@keel/spec';
import type { CompactionHooks } from './compaction-hooks';
import type { CompactionPlan } from './plan-compaction';
import type { Producer } from './producer';
import { HOOK_PRODUCER_ID } from './producer-ids';
import { runProducers } from './run-producers';
import type { SummaryRequirements } from './summary-requirements';
import { SUMMARY_SECTIONS } from './summary-sections';
import { untilAbort } from './until-abort';
import { describeSummaryProblems } from './validate-summary';

export interface FindSummaryOptions {
  sessionId: string;
  trigger: CompactionTrigger;
  focus: string | undefined;
  signal: AbortSignal;
  plan: CompactionPlan;
  requirements: SummaryRequirements;
  beforeCompact: CompactionHooks['beforeCompact'];
  /** The producers to try, built when they are needed (unknown registry ids become attempts). */
  producers(attempts: CompactionAttempt[]): Producer[];
  emit(event: CompactionEvent): void;
  /** Failed tries are appended here, in order. */
  attempts: CompactionAttempt[];
}

export type FoundSummary =
  | { type: 'summary'; summary: string; producerId: string; calls: number }
  | { type: 'cancelled'; reason: string | undefined }
  | { type: 'none' };

/** The hook's decision; a hook that ignores its signal is not waited for once the caller aborts. */
async function askBeforeCompact(options: FindSummaryOptions) {
  const { plan, requirements, signal } = options;
  const decision = await untilAbort(
    Promise.resolve(
      options.beforeCompact?.({
        sessionId: options.sessionId,
        trigger: options.trigger,
        plan,
        requiredIdentifiers: requirements.requiredIdentifiers,
        budgetTokens: requirements.budgetTokens,
        signal,
      }),
    ),
    signal,
  );
  signal.throwIfAborted();
  return decision;
}

/**
 * Internal: the summary for a plan, from the `beforeCompact` hook when it supplies a valid one,
 * else from the producers in order (each validated, with one corrective retry). Rejects only on a
 * caller abort or a throwing hook.
 */
export async function findSummary(options: FindSummaryOptions): Promise<FoundSummary> {
  const { plan, requirements, attempts } = options;
  const decision = await askBeforeCompact(options);
  if (decision?.action === 'cancel') return { type: 'cancelled', reason: decision.reason };
  if (decision?.action === 'supply') {
    const validation = requirements.validate(decision.summary);
    if (validation.valid) {
      const summary = decision.summary.trim();
      return { type: 'summary', summary, producerId: HOOK_PRODUCER_ID, calls: 1 };
    }
    const problems = describeSummaryProblems(validation.problems);
    attempts.push({
      producerId: HOOK_PRODUCER_ID,
      attempt: 1,
      reason: `invalid summary: ${problems}`,
    });
  }
  const produced = await runProducers(
    options.producers(attempts),
    {
      sessionId: options.sessionId,
      compacted: plan.compacted,
      chunks: plan.chunks,
      chunkMaxTokens: plan.chunkMaxTokens,
      previousSummary: plan.previousSummary,
      budgetTokens: requirements.budgetTokens,
      requiredIdentifiers: requirements.requiredIdentifiers,
      requiredSections: SUMMARY_SECTIONS,
      focus: options.focus,
      signal: options.signal,
      emit: options.emit,
    },
    requirements.validate,
    attempts,
  );
  return produced.ok ? { type: 'summary', ...produced } : { type: 'none' };
}
