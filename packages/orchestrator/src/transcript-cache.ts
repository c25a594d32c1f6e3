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
 * skipped, however long the transcript. A view is handed over, not copied: `take` removes it (the
 * turn that takes it appends to it), `put` gives it back when the turn ends. Bounded by the
 * entries' size (their JSON, weighed once per entry as they arrive) across every session, and by
 * a session count; the least recently used sessions go first.
 */
export interface TranscriptCache {
  take(sessionId: string, state: TranscriptState | undefined): TranscriptView | undefined;
  put(sessionId: string, state: TranscriptState | undefined, view: TranscriptView): void;
  /** The weight held now (the JSON characters of the cached entries). */
  readonly bytes: number;
}

export interface TranscriptCacheOptions {
  /** Most sessions kept (default 10 000). */
  sessions?: number;
  /** Most JSON characters kept across every session (default 16 MiB). */
  maxBytes?: number;
}

/** A cached view and how much of it has been weighed. */
interface Held {
  state: TranscriptState;
  view: TranscriptView;
  /** Entries weighed so far (the view only grows while cached or taken). */
  weighed: number;
  bytes: number;
}

export function createTranscriptCache(options: TranscriptCacheOptions = {}): TranscriptCache {
  const sessions = options.sessions ?? 10_000;
  const maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
  const cache = new Map<string, Held>();
  // A taken view's weighing, kept so that putting it back weighs only the turn's new entries.
  const taken = new WeakMap<TranscriptView, { weighed: number; bytes: number }>();
  let total = 0;
  const drop = (sessionId: string) => {
    const held = cache.get(sessionId);
    if (held === undefined) return undefined;
    cache.delete(sessionId);
    total -= held.bytes;
    return held;
  };
  return {
    take(sessionId, state) {
      const held = drop(sessionId);
      if (held === undefined || state === undefined || !sameState(held.state, state))
        return undefined;
      taken.set(held.view, { weighed: held.weighed, bytes: held.bytes });
      return held.view;
    },
    put(sessionId, state, view) {
      drop(sessionId);
      if (state === undefined) return;
      const before = taken.get(view);
      taken.delete(view);
      // Only a view that grew since it was taken keeps its weighing; anything else is weighed anew.
      const grew = before !== undefined && before.weighed <= view.entries.length;
      let bytes = grew ? before.bytes : 0;
      for (let index = grew ? before.weighed : 0; index < view.entries.length; index += 1)
        bytes += JSON.stringify(view.entries[index]).length;
      if (bytes > maxBytes) return;
      cache.set(sessionId, { state, view, weighed: view.entries.length, bytes });
      total += bytes;
      for (const oldest of cache.keys()) {
        if (total <= maxBytes && cache.size <= sessions) break;
        drop(oldest);
      }
    },
    get bytes() {
      return total;
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
