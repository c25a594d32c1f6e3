import type { TranscriptEntry, TranscriptState } from '@keel/spec';

/**
 * The transcripts this orchestrator last wrote, keyed by the state the fence expects: when the
 * fence finds the same state at the next turn's start, nothing changed in between and the read is
 * skipped. Bounded: the most recently used sessions, and only transcripts of moderate length.
 */
export interface TranscriptCache {
  get(sessionId: string, state: TranscriptState | undefined): TranscriptEntry[] | undefined;
  set(
    sessionId: string,
    state: TranscriptState | undefined,
    entries: readonly TranscriptEntry[],
  ): void;
}

export function createTranscriptCache(
  options: { sessions?: number; maxEntries?: number } = {},
): TranscriptCache {
  const sessions = options.sessions ?? 256;
  const maxEntries = options.maxEntries ?? 5_000;
  const cache = new Map<string, { state: TranscriptState; entries: readonly TranscriptEntry[] }>();
  return {
    get(sessionId, state) {
      const cached = cache.get(sessionId);
      if (cached === undefined || state === undefined || !sameState(cached.state, state))
        return undefined;
      cache.delete(sessionId);
      cache.set(sessionId, cached);
      return [...cached.entries];
    },
    set(sessionId, state, entries) {
      cache.delete(sessionId);
      if (state === undefined || entries.length > maxEntries) return;
      cache.set(sessionId, { state, entries: [...entries] });
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
