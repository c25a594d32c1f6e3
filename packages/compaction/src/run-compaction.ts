import type {
  CompactionAttempt,
  CompactionEntry,
  CompactionSkipReason,
  CompactionTrigger,
  CompactRequest,
  CompactResult,
  TranscriptEntry,
} from '@keel/spec';
import { CompactionError } from './compaction-error';
import type { CompactionHooks } from './compaction-hooks';
import type { EventHub } from './create-event-hub';
import type { FailureTracker } from './create-failure-tracker';
import { estimateTextTokens } from './estimate-tokens';
import { findSummary } from './find-summary';
import type { CompactionBudgetOptions, CompactionPlan } from './plan-compaction';
import type { Producer } from './producer';
import { computeSourceDigest } from './source-digest';
import { summaryRequirements } from './summary-requirements';

/** Internal: what one compaction uses of its compactor. */
export interface CompactionRun {
  budget: CompactionBudgetOptions;
  summaryMaxTokens: number;
  maxIdentifiers: number;
  plan(entries: readonly TranscriptEntry[]): CompactionPlan;
  producers(attempts: CompactionAttempt[]): Producer[];
  beforeCompact: CompactionHooks['beforeCompact'];
  events: EventHub;
  failures: FailureTracker;
  createId(): string;
  now(): Date;
}

type Skip = { reason: CompactionSkipReason; detail: string | undefined };
type EndOutcome = 'compacted' | 'failed' | 'aborted' | 'cancelled';

/** Why a threshold compaction is not needed yet, in words. */
function describeNotNeeded(plan: CompactionPlan, budget: CompactionBudgetOptions): string {
  const threshold = budget.contextWindowTokens - budget.reserveTokens;
  const tokens = plan.tokensBefore;
  return tokens > threshold
    ? `${tokens} tokens in context, within keepRecentTokens (${budget.keepRecentTokens})`
    : `${tokens} tokens in context; compaction starts above ${threshold} (contextWindowTokens − reserveTokens)`;
}

/** Whether this plan is skipped: nothing to compact, or (on `threshold`) not needed yet. */
function skipOf(
  plan: CompactionPlan,
  trigger: CompactionTrigger,
  budget: CompactionBudgetOptions,
): Skip | undefined {
  if (plan.compacted.length === 0) {
    return { reason: 'nothing-to-compact', detail: plan.whyNothingToCompact };
  }
  if (trigger === 'threshold' && !plan.shouldCompact) {
    return { reason: 'not-needed', detail: describeNotNeeded(plan, budget) };
  }
  return undefined;
}

/** The `compaction` entry for a plan and its validated summary. */
function compactionEntry(
  run: CompactionRun,
  plan: CompactionPlan,
  produced: { summary: string; producerId: string; calls: number },
): CompactionEntry {
  return {
    type: 'compaction',
    id: run.createId(),
    timestamp: run.now().toISOString(),
    summary: produced.summary,
    firstKeptEntryId: plan.firstKeptEntryId,
    provenance: {
      producerId: produced.producerId,
      attempts: produced.calls,
      tokensBefore: plan.tokensBefore,
      tokensAfter: estimateTextTokens(produced.summary) + plan.keptTokens,
      sourceDigest: computeSourceDigest(plan.compacted),
    },
  };
}

/** The events of one compaction, and the skip result that goes with its event. */
function createReport(run: CompactionRun, sessionId: string, trigger: CompactionTrigger) {
  const { emit } = run.events;
  return {
    skip({ reason, detail }: Skip): CompactResult {
      const why = detail === undefined ? {} : { detail };
      emit({ type: 'compaction-skipped', sessionId, trigger, reason, ...why });
      return { status: 'skipped', reason, ...why };
    },
    start(plan: CompactionPlan): void {
      emit({
        type: 'compaction-start',
        sessionId,
        trigger,
        tokensBefore: plan.tokensBefore,
        compactedMessages: plan.compacted.length,
        keptMessages: plan.kept.length,
      });
    },
    end(outcome: EndOutcome, attempts: CompactionAttempt[], entry?: CompactionEntry): void {
      const committed = entry === undefined ? {} : { entry };
      emit({ type: 'compaction-end', sessionId, trigger, outcome, attempts, ...committed });
    },
  };
}

type Report = ReturnType<typeof createReport>;

/**
 * Finds a valid summary for the plan (hook, providers, built-in summarizer) and appends one
 * `compaction` entry; nothing is written when none is found or the caller aborts.
 */
async function summarizeAndCommit(
  run: CompactionRun,
  request: CompactRequest,
  plan: CompactionPlan,
  report: Report,
): Promise<CompactResult> {
  const { sessionId, signal } = request;
  const trigger = request.trigger ?? 'threshold';
  const attempts: CompactionAttempt[] = [];
  report.start(plan);
  try {
    const found = await findSummary({
      sessionId,
      trigger,
      focus: request.focus,
      signal,
      plan,
      requirements: summaryRequirements(plan, {
        budgetTokens: run.summaryMaxTokens,
        maxIdentifiers: run.maxIdentifiers,
      }),
      beforeCompact: run.beforeCompact,
      producers: run.producers,
      emit: run.events.emit,
      attempts,
    });
    if (found.type === 'cancelled') {
      report.end('cancelled', attempts);
      return report.skip({ reason: 'cancelled', detail: found.reason });
    }
    if (found.type === 'none') {
      run.failures.recordFailure(sessionId, trigger);
      report.end('failed', attempts);
      throw new CompactionError({
        code: 'all-producers-failed',
        sessionId,
        attempts,
        message: `compaction failed: no valid summary after ${attempts.length} failed attempt(s); the transcript is unchanged`,
      });
    }
    const entry = compactionEntry(run, plan, found);
    signal.throwIfAborted();
    await request.store.append(sessionId, [entry], { signal });
    run.failures.recordSuccess(sessionId);
    report.end('compacted', attempts, entry);
    return { status: 'compacted', entry };
  } catch (error) {
    if (!CompactionError.isInstance(error)) {
      report.end(signal.aborted ? 'aborted' : 'failed', attempts);
    }
    throw error;
  }
}

/**
 * Internal: one compaction of a session while this compactor runs no other of it: the pause,
 * the plan of what the store holds now, the skips, then summarize and commit. Every skip and
 * every outcome is reported as an event.
 */
export async function runCompaction(
  run: CompactionRun,
  request: CompactRequest,
): Promise<CompactResult> {
  const { sessionId, signal } = request;
  const trigger = request.trigger ?? 'threshold';
  const report = createReport(run, sessionId, trigger);
  if (trigger !== 'manual' && run.failures.isPaused(sessionId)) {
    return report.skip({ reason: 'paused', detail: run.failures.describePause(sessionId) });
  }
  const { entries } = await request.store.read(sessionId, { signal });
  signal.throwIfAborted();
  const plan = run.plan(entries);
  const skipped = skipOf(plan, trigger, run.budget);
  if (skipped !== undefined) return report.skip(skipped);
  return summarizeAndCommit(run, request, plan, report);
}
