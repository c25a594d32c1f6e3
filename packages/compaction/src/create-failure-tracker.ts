import type { CompactionEvent, CompactionTrigger } from '@keel/spec';
import type { CompactionFailureCounts } from './compaction-failure-counts';

/** Internal: consecutive failed automatic compactions per session, and the pause they cause. */
export interface FailureTracker {
  /** Whether automatic (`threshold`, `overflow`) compaction is paused for the session. */
  isPaused(sessionId: string): boolean;
  /** Why the session is paused, for the `paused` skip. */
  describePause(sessionId: string): string;
  /** Counts a failure of an automatic compaction (a manual one is not counted). */
  recordFailure(sessionId: string, trigger: CompactionTrigger): void;
  /** Clears the count; resumes the session if it was paused. */
  recordSuccess(sessionId: string): void;
}

export interface FailureTrackerOptions {
  counts: CompactionFailureCounts;
  maxConsecutiveFailures: number;
  emit(event: CompactionEvent): void;
}

/** Internal: emits `compaction-paused` when a session reaches the limit, `-resumed` when it leaves. */
export function createFailureTracker(options: FailureTrackerOptions): FailureTracker {
  const { counts, maxConsecutiveFailures, emit } = options;
  const isPaused = (sessionId: string): boolean =>
    (counts.get(sessionId) ?? 0) >= maxConsecutiveFailures;
  return {
    isPaused,
    describePause: (sessionId) =>
      `${counts.get(sessionId) ?? 0} consecutive automatic compactions failed; a manual compaction or resume() resumes automatic ones`,
    recordFailure(sessionId, trigger) {
      if (trigger === 'manual') return;
      const wasPaused = isPaused(sessionId);
      const count = (counts.get(sessionId) ?? 0) + 1;
      counts.set(sessionId, count);
      if (!wasPaused && isPaused(sessionId)) {
        emit({ type: 'compaction-paused', sessionId, consecutiveFailures: count });
      }
    },
    recordSuccess(sessionId) {
      const wasPaused = isPaused(sessionId);
      counts.delete(sessionId);
      if (wasPaused) emit({ type: 'compaction-resumed', sessionId });
    },
  };
}
