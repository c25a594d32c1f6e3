// A compaction's model calls cost money too, and belong to the session being compacted. The
// compactor hands what each of its summarizer's calls used to `onUsage` with the session it
// compacts, and this passes it on with the summarizer's model (the keyring charges it to the key
// that owns the session). Nothing is carried in an async context.
import type { CompactionUsage as SummarizerUsage } from '@keel/compaction';
import type { Usage } from '@keel/spec';

/** One compaction model call's reported usage. */
export interface CompactionUsage {
  sessionId: string;
  /** `providerId/model` of the summarizer. */
  model: string;
  usage: Usage;
}

export interface CompactionUsageTap {
  /** The compactor's `onUsage`: a summarizer call's usage, with the session compacted. */
  report(usage: SummarizerUsage): void;
  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: (usage: CompactionUsage) => void): () => void;
}

/** Passes each summarizer call's usage on, named with `model` (`providerId/model`). */
export function createCompactionUsageTap(model: string): CompactionUsageTap {
  const listeners = new Set<(usage: CompactionUsage) => void>();
  return {
    report({ sessionId, usage }) {
      for (const listener of listeners) listener({ sessionId, model, usage });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
