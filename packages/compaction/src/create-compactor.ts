import { randomUUID } from 'node:crypto';
import type {
  CompactionEvent,
  CompactionProvider,
  CompactorPort,
  CompactRequest,
  CompactResult,
  ModelPort,
  TranscriptEntry,
} from '@keel/spec';
import type { CompactionFailureCounts } from './compaction-failure-counts';
import type { CompactionHooks } from './compaction-hooks';
import type { CompactionRegistry } from './compaction-registry';
import type { CompactionUsage } from './compaction-usage';
import { createEventHub } from './create-event-hub';
import { createFailureTracker } from './create-failure-tracker';
import type { CompactionRetryOptions } from './create-producer-list';
import { createProducerList } from './create-producer-list';
import { estimateContextTokens } from './estimate-tokens';
import type { CompactionBudgetOptions, CompactionPlan } from './plan-compaction';
import { planCompaction, shouldCompact } from './plan-compaction';
import type { CompactionRun } from './run-compaction';
import { runCompaction } from './run-compaction';
import { selectContext } from './select-context';
import { createSessionMutex } from './session-mutex';

export interface CompactorOptions extends Partial<CompactionBudgetOptions> {
  /**
   * The built-in summarizer's model: any model port (`@keel/transport`'s transport fits); only its
   * `stream` is used. Without it only providers (and the hook) can summarize.
   */
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
  retry?: CompactionRetryOptions;
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
  /** Hooks that may change a compaction (`beforeCompact`). */
  hooks?: CompactionHooks;
  /** Receives every event; must not throw (a throwing listener is ignored). Same as `subscribe`. */
  onEvent?: (event: CompactionEvent) => void;
  /**
   * Receives what each built-in summarizer model call reported it used (its `usage` events), with
   * the session compacted, e.g. to charge it to whoever owns the session; a throw is ignored.
   */
  onUsage?: (usage: CompactionUsage) => void;
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
  /**
   * Whether a `threshold` compaction of this transcript would run: it is over the threshold and
   * has something to compact. Pure and cheap (each message's estimate is made once), so the
   * orchestrator asks it every turn and calls `compact` only when it says yes.
   */
  shouldCompact(entries: readonly TranscriptEntry[]): boolean;
  /** Whether automatic (`threshold`, `overflow`) compaction is paused for the session. */
  isPaused(sessionId: string): boolean;
  /** Clears the session's failure count and resumes automatic compaction. */
  resume(sessionId: string): void;
  /** Adds an event listener; returns the function that removes it. */
  subscribe(listener: (event: CompactionEvent) => void): () => void;
}

/** The budget with its defaults. */
function resolveBudget(options: CompactorOptions): CompactionBudgetOptions {
  return {
    contextWindowTokens: options.contextWindowTokens ?? 200_000,
    reserveTokens: options.reserveTokens ?? 16_384,
    keepRecentTokens: options.keepRecentTokens ?? 20_000,
  };
}

/** Creates a compactor: plan, `beforeCompact`, providers in order, the built-in summarizer, validation, commit. */
export function createCompactor(options: CompactorOptions = {}): Compactor {
  const budget = resolveBudget(options);
  const chunking =
    options.chunkMaxTokens === undefined ? {} : { chunkMaxTokens: options.chunkMaxTokens };
  const plan = (entries: readonly TranscriptEntry[]): CompactionPlan =>
    planCompaction(entries, { ...budget, ...chunking });
  const events = createEventHub(options.onEvent);
  const failures = createFailureTracker({
    counts: options.failureCounts ?? new Map<string, number>(),
    maxConsecutiveFailures: options.maxConsecutiveFailures ?? 3,
    emit: events.emit,
  });
  const run: CompactionRun = {
    budget,
    summaryMaxTokens:
      options.summaryMaxTokens ??
      Math.min(8192, Math.max(256, Math.floor(budget.reserveTokens / 2))),
    maxIdentifiers: options.maxIdentifiers ?? 64,
    plan,
    producers: createProducerList(options),
    beforeCompact: options.hooks?.beforeCompact,
    events,
    failures,
    createId: options.createId ?? randomUUID,
    now: options.now ?? (() => new Date()),
  };
  const running = createSessionMutex();

  async function compact(request: CompactRequest): Promise<CompactResult> {
    request.signal.throwIfAborted();
    const release = await running.acquire(request.sessionId, request.signal);
    try {
      return await runCompaction(run, request);
    } finally {
      release();
    }
  }

  return {
    plan,
    compact,
    shouldCompact(entries) {
      // The threshold first, from the same estimate the plan makes: a turn under it (nearly every
      // turn) skips the plan's cut point, slices and chunks.
      const context = selectContext(entries);
      const { tokens } = estimateContextTokens(context.messages, context.previousSummary);
      if (!shouldCompact({ tokens, ...budget })) return false;
      const planned = plan(entries);
      return planned.compacted.length > 0 && planned.shouldCompact;
    },
    isPaused: failures.isPaused,
    resume: failures.recordSuccess,
    subscribe: events.subscribe,
  };
}
