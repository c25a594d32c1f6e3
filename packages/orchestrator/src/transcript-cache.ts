import type { TranscriptEntry, TranscriptState } from '@keel/spec';
import { createTranscriptFactsIndex, type TranscriptFactsIndex } from './transcript-facts';

/** A session's transcript as a turn holds it: the entries, and their facts kept up to date. */
export interface TranscriptView {
  entries: TranscriptEntry[];
  facts: TranscriptFactsIndex;
}

/** A view of a transcript just read from storage. */
export function transcriptView(entries: TranscriptEntry[]): TranscriptView {
  return { entries, facts: createTranscriptFactsIndex() };
}

/**
 * The transcripts this orchestrator last wrote, keyed by the state the fence expects: when the
 * fence finds the same state at the next turn's start, nothing changed in between and the read is
 * skipped. A view is handed over, not copied: `take` removes it (the turn that takes it appends to
 * it), `put` gives it back when the turn ends. Bounded: the most recently used sessions, and only
 * transcripts of moderate length.
 */
export interface TranscriptCache {
  take(sessionId: string, state: TranscriptState | undefined): TranscriptView | undefined;
  put(sessionId: string, state: TranscriptState | undefined, view: TranscriptView): void;
}

export function createTranscriptCache(
  options: { sessions?: number; maxEntries?: number } = {},
): TranscriptCache {
  const sessions = options.sessions ?? 256;
  const maxEntries = options.maxEntries ?? 5_000;
  const cache = new Map<string, { state: TranscriptState; view: TranscriptView }>();
  return {
    take(sessionId, state) {
      const cached = cache.get(sessionId);
      cache.delete(sessionId);
      if (cached === undefined || state === undefined || !sameState(cached.state, state))
        return undefined;
      return cached.view;
    },
    put(sessionId, state, view) {
      cache.delete(sessionId);
      if (state === undefined || view.entries.length > maxEntries) return;
      cache.set(sessionId, { state, view });
      if (cache.size > sessions) cache.delete(cache.keys().next().value as string);
    },
  };
}

function sameState(a: TranscriptState, b: TranscriptState): boolean {
  return (
    a.exists === b.exists &&
    a.identity === b.identity &&
    a.size === b.size &&
    a.tailLength === b.tailLength &&
    a.tailDigest === b.tailDigest &&
    (a.headLength ?? 0) === (b.headLength ?? 0) &&
    a.headDigest === b.headDigest
  );
}
