import type { TranscriptEntry, TranscriptState, TranscriptText } from '@keel/spec';
import { liveStart } from './build-context';
import { createTranscriptFactsIndex, type TranscriptFactsIndex } from './transcript-facts';

/**
 * A session's transcript as a turn holds it: the entries, and their facts kept up to date. Once
 * cached, only its live part (`liveStart`): what the latest compaction summarized is let go, its
 * facts kept (`TranscriptFactsIndex.forget`).
 */
export interface TranscriptView {
  /** The transcript from position `base` on. */
  entries: TranscriptEntry[];
  /** How many entries before `entries[0]` were let go (0: `entries` is the whole transcript). */
  base: number;
  facts: TranscriptFactsIndex;
  /**
   * The heap the facts hold of the entries let go: unanswered messages (`entryHeapBytes`) and the
   * hashes of ids (`HEAP_PER_FORGOTTEN_ID`).
   */
  heldBytes: number;
  /**
   * The weight of the entries as read, from the text the store parsed them from: the cache
   * weighs only the entries after these, not serializing again what was just parsed.
   */
  readonly read: Weighing | undefined;
}

/** A view of a transcript just read from storage, weighed by its text when the store measured it. */
export function transcriptView(entries: TranscriptEntry[], text?: TranscriptText): TranscriptView {
  return {
    entries,
    base: 0,
    facts: createTranscriptFactsIndex(),
    heldBytes: 0,
    read:
      text === undefined
        ? undefined
        : { weighed: entries.length, bytes: HEAP_PER_SESSION + textHeapBytes(text) },
  };
}

/**
 * The transcripts this orchestrator last wrote, keyed by the state the fence expects: when the
 * fence finds the same state at the next turn's start, nothing changed in between and the read is
 * skipped, however long the transcript. A view put back keeps only its live part, so that a long
 * conversation takes in the cache what its model context takes, not what its file does. A view is
 * handed over, not copied: `take` removes it (the turn that takes it appends to it), `put` gives
 * it back when the turn ends. Bounded by what the views take on V8's heap across every session
 * (`entryHeapBytes` for each entry, weighed once as it arrives — entries just read are weighed by
 * the text they were parsed from, when the store measured it — what the facts keep of the entries
 * let go, and `HEAP_PER_SESSION` for each view), and by a session count; the least recently used
 * sessions go first.
 */
export interface TranscriptCache {
  take(sessionId: string, state: TranscriptState | undefined): TranscriptView | undefined;
  /**
   * Like `take`, but a view put back under another state is handed over too, with that state
   * (`since`): the transcript as it was then, for the caller to bring up to date (read what was
   * appended after it, `SessionStorage.readSince`) or drop.
   */
  takeFrom(
    sessionId: string,
    state: TranscriptState | undefined,
  ): { view: TranscriptView; since: TranscriptState | undefined } | undefined;
  put(sessionId: string, state: TranscriptState | undefined, view: TranscriptView): void;
  /** The heap held now, in bytes, as `entryHeapBytes` and `HEAP_PER_SESSION` estimate it. */
  readonly bytes: number;
}

export interface TranscriptCacheOptions {
  /** Most sessions kept (default 10 000). */
  sessions?: number;
  /** Most heap kept across every session, in bytes as the cache estimates it (default 16 MiB). */
  maxBytes?: number;
}

/*
 * What a cached transcript takes on V8's heap, estimated from its entries' JSON. Measured on
 * Node 20 (x64) by filling a cache with 1 000 sessions of chat turns (a user message, the turn's
 * start, an assistant message with usage, the turn's end), their views' facts advanced, and
 * reading `v8.getHeapStatistics().used_heap_size` after `gc()` before and after (the difference
 * divided by the entries' JSON characters; `node --expose-gc`): entries built by the orchestrator
 * 1.13× their JSON at 80 turns a session, 1.22× at 20, 1.50× at 5; parsed from a transcript file
 * 1.11–1.41×; long replies (about 2 400 characters) 1.02–1.08×. Fitted, an entry takes about 1.13×
 * its JSON and a session about 2 KiB more (its view, facts index and slot in the cache). A string
 * with a character past U+00FF is held at two bytes a character (Japanese text measured 1.70× as
 * a whole entry). `transcript-heap.test.ts` checks the estimate against the heap the same way.
 * JSON that is mostly tiny values (a tool input of a long array of numbers) takes more per
 * character than this (up to about 4× by V8's layout, not measured: 8 bytes a small number in an
 * array, 2 characters of JSON).
 */
/**
 * Heap per JSON character of an entry whose strings are all one byte a character: the 1.13×
 * fitted, rounded up so that the count stays at or over what is held (the measure moves ±5 %).
 */
export const HEAP_PER_JSON_CHAR = 1.25;
/** Heap per JSON character of an entry with a character past U+00FF (two-byte strings). */
export const HEAP_PER_WIDE_JSON_CHAR = 2;
/** The heap a cached session takes besides its entries. */
export const HEAP_PER_SESSION = 2048;
/**
 * The heap a hash of an id let go takes in its facts' set (`TranscriptFactsIndex.forget`):
 * measured on Node 20 (x64) at 20–33 bytes an id in sets of 500–5 000 (a `Set` of small integers,
 * its table's slack included), rounded up.
 */
export const HEAP_PER_FORGOTTEN_ID = 40;
const WIDE = /[\u0100-\uffff]/;

/** The heap one transcript entry takes, estimated from its JSON (see above). */
export function entryHeapBytes(entry: TranscriptEntry): number {
  const json = JSON.stringify(entry);
  return Math.ceil(json.length * (WIDE.test(json) ? HEAP_PER_WIDE_JSON_CHAR : HEAP_PER_JSON_CHAR));
}

/**
 * The heap of entries parsed from `text`, estimated as `entryHeapBytes` does, from the whole
 * text at once: wide if any line is (an over-estimate for the others, never an under-estimate).
 */
export function textHeapBytes(text: TranscriptText): number {
  return Math.ceil(text.chars * (text.wide ? HEAP_PER_WIDE_JSON_CHAR : HEAP_PER_JSON_CHAR));
}

/** How much of a view has been weighed: its first `weighed` entries, `bytes` with the session's. */
interface Weighing {
  weighed: number;
  bytes: number;
}

/** A cached view and how much of it has been weighed (the view only grows while cached or taken). */
interface Held extends Weighing {
  state: TranscriptState;
  view: TranscriptView;
}

export function createTranscriptCache(options: TranscriptCacheOptions = {}): TranscriptCache {
  const sessions = options.sessions ?? 10_000;
  const maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
  const cache = new Map<string, Held>();
  // A taken view's weighing, kept so that putting it back weighs only the turn's new entries.
  const taken = new WeakMap<TranscriptView, Weighing>();
  let total = 0;
  const drop = (sessionId: string) => {
    const held = cache.get(sessionId);
    if (held === undefined) return undefined;
    cache.delete(sessionId);
    total -= held.bytes;
    return held;
  };
  const takeFrom: TranscriptCache['takeFrom'] = (sessionId, state) => {
    const held = drop(sessionId);
    if (held === undefined || state === undefined) return undefined;
    taken.set(held.view, { weighed: held.weighed, bytes: held.bytes });
    return { view: held.view, since: sameState(held.state, state) ? undefined : held.state };
  };
  return {
    take(sessionId, state) {
      const taking = takeFrom(sessionId, state);
      return taking?.since === undefined ? taking?.view : undefined;
    },
    takeFrom,
    put(sessionId, state, view) {
      drop(sessionId);
      if (state === undefined) return;
      // A view that let entries go is weighed anew; any other keeps its weighing so far.
      const trimmed = letGo(view);
      const before = trimmed ? undefined : (taken.get(view) ?? view.read);
      taken.delete(view);
      // Only a view that grew since it was taken keeps its weighing; anything else is weighed anew.
      const grew = before !== undefined && before.weighed <= view.entries.length;
      let bytes = grew ? before.bytes : HEAP_PER_SESSION + view.heldBytes;
      for (let index = grew ? before.weighed : 0; index < view.entries.length; index += 1)
        bytes += entryHeapBytes(view.entries[index] as TranscriptEntry);
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

/**
 * Lets go of the entries before the view's live part, its facts keeping what they need of them.
 * Whether any were let go (the view's entries are then a new array: a turn that held the old one
 * still has the whole).
 */
function letGo(view: TranscriptView): boolean {
  const start = liveStart(view.entries);
  if (start === 0) return false;
  view.facts.advance(view.entries, view.base);
  const { kept, hashes } = view.facts.forget(view.entries.slice(0, start));
  for (const entry of kept) view.heldBytes += entryHeapBytes(entry);
  view.heldBytes += hashes * HEAP_PER_FORGOTTEN_ID;
  view.entries = view.entries.slice(start);
  view.base += start;
  return true;
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
