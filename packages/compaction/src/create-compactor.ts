import { randomUUID } from 'node:crypto';
import type {
  CompactionAttempt,
  CompactionEntry,
  CompactionEvent,
  CompactionProvider,
  CompactionSkipReason,
  CompactionTrigger,
  CompactorPort,
  CompactRequest,
  CompactResult,
  ModelPort,
  TranscriptEntry,
} from '@keel/spec';
import type { BackoffOptions } from './backoff';
import { CompactionError } from './compaction-error';
import type { CompactionFailureCounts } from './compaction-failure-counts';
import type { CompactionHooks } from './compaction-hooks';
import type { CompactionRegistry } from './compaction-registry';
import { estimateTextTokens } from './estimate-tokens';
import { collectIdentifiers } from './extract-identifiers';
import { createModelSummarizer } from './model-summarizer';
import type { CompactionBudgetOptions, CompactionPlan } from './plan-compaction';
import { planCompaction } from './plan-compaction';
import type { ProduceRequest, Producer } from './producer';
import { createProviderProducer } from './provider-producer';
import { messageText } from './render-messages';
import { runProducers } from './run-producers';
import { createSessionMutex } from './session-mutex';
import { computeSourceDigest } from './source-digest';
import { SUMMARY_SECTIONS } from './summary-sections';
import { untilAbort } from './until-abort';
import { describeSummaryProblems, validateSummary } from './validate-summary';

/** Producer id recorded when `beforeCompact` supplied the summary. */
export const HOOK_PRODUCER_ID = 'hook:beforeCompact';

export interface CompactorOptions extends Partial<CompactionBudgetOptions> {
  /** The built-in summarizer's model; without it only providers (and the hook) can summarize. */
  model?: Pick<ModelPort, 'stream'>;
  modelName?: string;
  /** Where provider ids in `providers` are looked up; its providers run when `providers` is unset. */
  registry?: CompactionRegistry;
  /** Providers tried in order before the built-in summarizer: objects or registry ids. */
  providers?: ReadonlyArray<string | CompactionProvider>;
  /** Largest summary, in estimated tokens; default `reserveTokens / 2`, between 256 and 8192. */
  summaryMaxTokens?: number;
  /** Largest chunk per built-in summarizer call; default `(window − reserve) / 2`. */
  chunkMaxTokens?: number;
  /** Most identifiers a summary is required to keep (the newest win); default 64. */
  maxIdentifiers?: number;
  /** Built-in summarizer retries: attempts per chunk (default 3) and backoff. */
  retry?: BackoffOptions & { maxAttemptsPerChunk?: number };
  /** Longest time one provider call may take; default 120 000 ms. */
  providerTimeoutMs?: number;
  /**
   * Longest time one built-in summarizer model call may take, streaming included; default
   * 300 000 ms. A call past it counts as a `timeout`: not retried in place.
   */
  modelTimeoutMs?: number;
  /** Consecutive automatic failures after which automatic compaction pauses; default 3. */
  maxConsecutiveFailures?: number;
  /**
   * Where the consecutive failures are counted; default a new `Map` (in memory, this compactor
   * only). Share one, or back it by durable storage, for the pause to outlive the compactor.
   */
  failureCounts?: CompactionFailureCounts;
  hooks?: CompactionHooks;
  onEvent?: (event: CompactionEvent) => void;
  now?: () => Date;
  createId?: () => string;
}

export interface Compactor extends CompactorPort {
  /** The pure plan for a transcript with this compactor's budget. */
  plan(entries: readonly TranscriptEntry[]): CompactionPlan;
  /**
   * Reads the transcript, summarizes the compacted range and appends one `compaction` entry.
   * Throws `CompactionError` when every producer fails (nothing written), and the signal's reason
   * on caller abort (nothing written). Compactions of one session by this compactor run one at a
   * time: a second call waits (waking on abort) and then plans on what the first one wrote.
   */
  compact(request: CompactRequest): Promise<CompactResult>;
  /** Whether automatic (`threshold`, `overflow`) compaction is paused for the session. */
  isPaused(sessionId: string): boolean;
  /** Clears the session's failure count and resumes automatic compaction. */
  resume(sessionId: string): void;
  /** Adds an event listener; returns the function that removes it. */
  subscribe(listener: (event: CompactionEvent) => void): () => void;
}

/** Creates a compactor: plan, providers in order, the built-in summarizer, validation, commit. */
export function createCompactor(options: CompactorOptions = {}): Compactor {
  const budget: CompactionBudgetOptions = {
    contextWindowTokens: options.contextWindowTokens ?? 200_000,
    reserveTokens: options.reserveTokens ?? 16_384,
    keepRecentTokens: options.keepRecentTokens ?? 20_000,
  };
  const summaryMaxTokens =
    options.summaryMaxTokens ?? Math.min(8192, Math.max(256, Math.floor(budget.reserveTokens / 2)));
  const maxFailures = options.maxConsecutiveFailures ?? 3;
  const listeners = new Set<(event: CompactionEvent) => void>();
  if (options.onEvent !== undefined) listeners.add(options.onEvent);
  const failures: CompactionFailureCounts = options.failureCounts ?? new Map<string, number>();
  const isPaused = (sessionId: string): boolean => (failures.get(sessionId) ?? 0) >= maxFailures;
  const running = createSessionMutex();
  const builtin =
    options.model === undefined
      ? undefined
      : createModelSummarizer({
          ...options.retry,
          model: options.model,
          ...(options.modelName === undefined ? {} : { modelName: options.modelName }),
          ...(options.modelTimeoutMs === undefined
            ? {}
            : { modelTimeoutMs: options.modelTimeoutMs }),
        });

  function emit(event: CompactionEvent): void {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch {
        // observers never break a compaction
      }
    }
  }

  function plan(entries: readonly TranscriptEntry[]): CompactionPlan {
    return planCompaction(entries, {
      ...budget,
      ...(options.chunkMaxTokens === undefined ? {} : { chunkMaxTokens: options.chunkMaxTokens }),
    });
  }

  function producers(attempts: CompactionAttempt[]): Producer[] {
    const list: Producer[] = [];
    const configured = options.providers ?? options.registry?.list() ?? [];
    for (const item of configured) {
      const provider = typeof item === 'string' ? options.registry?.get(item) : item;
      if (provider === undefined) {
        attempts.push({ producerId: String(item), attempt: 0, reason: 'provider not registered' });
        continue;
      }
      list.push(
        createProviderProducer(provider, {
          ...(options.providerTimeoutMs === undefined
            ? {}
            : { timeoutMs: options.providerTimeoutMs }),
        }),
      );
    }
    if (builtin !== undefined) list.push(builtin);
    return list;
  }

  function recordFailure(sessionId: string, trigger: CompactionTrigger): void {
    if (trigger === 'manual') return;
    const wasPaused = isPaused(sessionId);
    const count = (failures.get(sessionId) ?? 0) + 1;
    failures.set(sessionId, count);
    if (!wasPaused && isPaused(sessionId)) {
      emit({ type: 'compaction-paused', sessionId, consecutiveFailures: count });
    }
  }

  function recordSuccess(sessionId: string): void {
    const wasPaused = isPaused(sessionId);
    failures.delete(sessionId);
    if (wasPaused) emit({ type: 'compaction-resumed', sessionId });
  }

  async function compact(request: CompactRequest): Promise<CompactResult> {
    request.signal.throwIfAborted();
    const release = await running.acquire(request.sessionId, request.signal);
    try {
      return await compactHeld(request);
    } finally {
      release();
    }
  }

  /** `compact()` while this compactor runs no other compaction of the session. */
  async function compactHeld(request: CompactRequest): Promise<CompactResult> {
    const { sessionId, signal, store } = request;
    const trigger = request.trigger ?? 'threshold';
    const skip = (reason: CompactionSkipReason, detail: string | undefined): CompactResult => {
      const why = detail === undefined ? {} : { detail };
      emit({ type: 'compaction-skipped', sessionId, trigger, reason, ...why });
      return { status: 'skipped', reason, ...why };
    };
    if (trigger !== 'manual' && isPaused(sessionId)) {
      const count = failures.get(sessionId) ?? 0;
      return skip(
        'paused',
        `${count} consecutive automatic compactions failed; a manual compaction or resume() resumes automatic ones`,
      );
    }
    const { entries } = await store.read(sessionId, { signal });
    signal.throwIfAborted();
    const current = plan(entries);
    if (current.compacted.length === 0) {
      return skip('nothing-to-compact', current.whyNothingToCompact);
    }
    if (trigger === 'threshold' && !current.shouldCompact) {
      const threshold = budget.contextWindowTokens - budget.reserveTokens;
      const tokens = current.tokensBefore;
      return skip(
        'not-needed',
        tokens > threshold
          ? `${tokens} tokens in context, within keepRecentTokens (${budget.keepRecentTokens})`
          : `${tokens} tokens in context; compaction starts above ${threshold} (contextWindowTokens − reserveTokens)`,
      );
    }

    const texts = current.compacted.map(messageText);
    if (current.previousSummary !== undefined) texts.unshift(current.previousSummary);
    const requiredIdentifiers = collectIdentifiers(texts, options.maxIdentifiers ?? 64);
    const validate = (summary: string) =>
      validateSummary(summary, { budgetTokens: summaryMaxTokens, requiredIdentifiers });
    const attempts: CompactionAttempt[] = [];
    emit({
      type: 'compaction-start',
      sessionId,
      trigger,
      tokensBefore: current.tokensBefore,
      compactedMessages: current.compacted.length,
      keptMessages: current.kept.length,
    });
    const end = (
      outcome: 'compacted' | 'failed' | 'aborted' | 'cancelled',
      entry?: CompactionEntry,
    ) =>
      emit({
        type: 'compaction-end',
        sessionId,
        trigger,
        outcome,
        attempts,
        ...(entry ? { entry } : {}),
      });

    try {
      let produced: { summary: string; producerId: string; calls: number } | undefined;
      // a hook that ignores its signal is not waited for once the caller aborts
      const decision = await untilAbort(
        Promise.resolve(
          options.hooks?.beforeCompact?.({
            sessionId,
            trigger,
            plan: current,
            requiredIdentifiers,
            budgetTokens: summaryMaxTokens,
            signal,
          }),
        ),
        signal,
      );
      signal.throwIfAborted();
      if (decision?.action === 'cancel') {
        end('cancelled');
        return skip('cancelled', decision.reason);
      }
      if (decision?.action === 'supply') {
        const validation = validate(decision.summary);
        if (validation.valid) {
          produced = { summary: decision.summary.trim(), producerId: HOOK_PRODUCER_ID, calls: 1 };
        } else {
          const problems = describeSummaryProblems(validation.problems);
          attempts.push({
            producerId: HOOK_PRODUCER_ID,
            attempt: 1,
            reason: `invalid summary: ${problems}`,
          });
        }
      }
      if (produced === undefined) {
        const produceRequest: ProduceRequest = {
          sessionId,
          compacted: current.compacted,
          chunks: current.chunks,
          chunkMaxTokens: current.chunkMaxTokens,
          previousSummary: current.previousSummary,
          budgetTokens: summaryMaxTokens,
          requiredIdentifiers,
          requiredSections: SUMMARY_SECTIONS,
          focus: request.focus,
          signal,
          emit,
        };
        const candidates = producers(attempts);
        if (candidates.length === 0) {
          attempts.push({
            producerId: 'none',
            attempt: 0,
            reason: 'no producer: configure model or providers',
          });
        }
        const result = await runProducers(candidates, produceRequest, validate, attempts);
        if (result.ok) produced = result;
      }
      if (produced === undefined) {
        recordFailure(sessionId, trigger);
        end('failed');
        throw new CompactionError({
          code: 'all-producers-failed',
          sessionId,
          attempts,
          message: `compaction failed: no valid summary after ${attempts.length} failed attempt(s); the transcript is unchanged`,
        });
      }
      const entry: CompactionEntry = {
        type: 'compaction',
        id: options.createId?.() ?? randomUUID(),
        timestamp: (options.now?.() ?? new Date()).toISOString(),
        summary: produced.summary,
        firstKeptEntryId: current.firstKeptEntryId,
        provenance: {
          producerId: produced.producerId,
          attempts: produced.calls,
          tokensBefore: current.tokensBefore,
          tokensAfter: estimateTextTokens(produced.summary) + current.keptTokens,
          sourceDigest: computeSourceDigest(current.compacted),
        },
      };
      signal.throwIfAborted();
      await store.append(sessionId, [entry], { signal });
      recordSuccess(sessionId);
      end('compacted', entry);
      try {
        const observed = options.hooks?.afterCompact?.({
          sessionId,
          trigger,
          entry,
          plan: current,
        });
        await untilAbort(Promise.resolve(observed), signal);
      } catch {
        // afterCompact observes only; on abort the committed compaction is still the result
      }
      return { status: 'compacted', entry };
    } catch (error) {
      if (!CompactionError.isInstance(error)) end(signal.aborted ? 'aborted' : 'failed');
      throw error;
    }
  }

  return {
    plan,
    compact,
    isPaused,
    resume: recordSuccess,
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
