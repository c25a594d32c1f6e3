import type { CompactionAttempt } from './compaction-error';
import type { CompactionEntry } from './types';

/** Why a compaction runs: over the threshold, after a `context_overflow` error, or asked for. */
export type CompactionTrigger = 'threshold' | 'overflow' | 'manual';

export type CompactionSkipReason = 'not-needed' | 'nothing-to-compact' | 'paused' | 'cancelled';

/** What a compactor reports, as a union on `type`. */
export type CompactionEvent =
  /** A compaction began: the plan is made and producers are about to run. */
  | {
      type: 'compaction-start';
      sessionId: string;
      trigger: CompactionTrigger;
      tokensBefore: number;
      compactedMessages: number;
      keptMessages: number;
    }
  /** A model call of the built-in summarizer failed transiently and will be retried. */
  | {
      type: 'compaction-retry';
      sessionId: string;
      producerId: string;
      /** 0-based chunk index; -1 for the corrective call. */
      chunk: number;
      attempt: number;
      kind: string;
      delayMs: number;
    }
  /** A producer failed or its output was rejected; the next one (if any) runs. */
  | {
      type: 'compaction-fallback';
      sessionId: string;
      producerId: string;
      nextProducerId: string | null;
      reason: string;
    }
  /** Nothing was done, and why. */
  | {
      type: 'compaction-skipped';
      sessionId: string;
      trigger: CompactionTrigger;
      reason: CompactionSkipReason;
    }
  /** A compaction that started is over: compacted, failed (nothing written) or aborted. */
  | {
      type: 'compaction-end';
      sessionId: string;
      trigger: CompactionTrigger;
      outcome: 'compacted' | 'failed' | 'aborted' | 'cancelled';
      entry?: CompactionEntry;
      attempts: readonly CompactionAttempt[];
    }
  /** Automatic compaction is paused for the session after consecutive failures. */
  | { type: 'compaction-paused'; sessionId: string; consecutiveFailures: number }
  /** Automatic compaction runs again for the session (after a success or `resume()`). */
  | { type: 'compaction-resumed'; sessionId: string };

/** Receives events; must not throw (a throwing listener is caught and ignored). */
export type CompactionEventListener = (event: CompactionEvent) => void;
