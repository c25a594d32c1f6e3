import type { CompactionEntry, CompactionTrigger } from '@keel/spec';
import type { TurnProgress } from './turn-progress';
import type { LiveTurn, TurnRuntime } from './turn-runtime';

export type CompactionRun = 'compacted' | 'skipped' | 'failed';

/**
 * Compacts the session through the turn's fence (the entry is an owned write). `threshold` runs
 * only when the compactor says the transcript is over its threshold and never fails the turn;
 * `overflow` always tries. A caller abort propagates; nothing is written by a failed compaction.
 */
export async function runCompaction(
  runtime: TurnRuntime,
  turn: LiveTurn,
  progress: TurnProgress,
  trigger: Extract<CompactionTrigger, 'threshold' | 'overflow'>,
): Promise<{ type: CompactionRun }> {
  const compactor = runtime.compactor;
  if (compactor === undefined) return { type: 'skipped' };
  if (trigger === 'threshold' && compactor.shouldCompact?.(turn.entries) === false)
    return { type: 'skipped' };
  const signal = turn.controller.signal;
  const unsubscribe = compactor.subscribe?.((event) => {
    if (event.sessionId !== turn.sessionId) return;
    runtime.emitter.emit({
      sessionId: turn.sessionId,
      turnId: turn.turnId,
      at: runtime.clock.now(),
      type: 'compaction',
      event,
    });
  });
  try {
    const result = await compactor.compact({
      sessionId: turn.sessionId,
      trigger,
      signal,
      store: {
        // The whole transcript, as the port promises: read again when the turn holds its live part.
        read: async () =>
          turn.entriesFrom === 0
            ? { entries: turn.entries }
            : await runtime.storage.read(turn.sessionId, { signal }),
        append: async (_sessionId, entries: readonly CompactionEntry[]) => {
          const written = await turn.fence.append(entries, { signal });
          turn.entries.push(...entries);
          return written;
        },
      },
    });
    if (result.status !== 'compacted') return { type: 'skipped' };
    progress.compactions += 1;
    return { type: 'compacted' };
  } catch (error) {
    if (signal.aborted || turn.fence.takeover !== undefined) throw error;
    return { type: 'failed' };
  } finally {
    unsubscribe?.();
  }
}
