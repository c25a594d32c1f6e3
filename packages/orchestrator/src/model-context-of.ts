import type { TranscriptEntry } from '@keel/spec';
import {
  type ContextScan,
  type ModelContext,
  placeMessages,
  scanContext,
  scanMore,
} from './build-context';

interface KeptScan {
  scan: ContextScan;
  /**
   * The array's last entry when it was scanned: still there, the array only grew since (one cut
   * short or from its start, even if appended to again, holds another entry or none there).
   */
  last: TranscriptEntry | undefined;
}

// Keyed by the transcript array a turn holds: the orchestrator hands it from turn to turn and only
// appends to it (a view that lets entries go gets a new array), so each scan goes on from where
// the last left off. Weak: a transcript let go takes its scan with it.
const scans = new WeakMap<readonly TranscriptEntry[], KeptScan>();

/**
 * `buildModelContext(entries, { folded })`, carried on from the last call for the same array:
 * only the entries appended since are read, and the messages placed for good before them are
 * reused (issue 20: a model call's context was rebuilt from the whole conversation, a pass over
 * entries the cache had long since let go cold — ~60 µs a call at 200 entries in a busy process).
 * The messages are shared between calls: nothing may change them (hooks get copies).
 */
export function modelContextOf(
  entries: readonly TranscriptEntry[],
  folded: ReadonlySet<string> | undefined,
): ModelContext {
  let kept = scans.get(entries);
  if (
    kept === undefined ||
    entries[kept.scan.scanned - 1] !== kept.last ||
    !scanMore(entries, kept.scan)
  ) {
    kept = { scan: scanContext(entries), last: undefined };
    scans.set(entries, kept);
  }
  kept.last = entries[entries.length - 1];
  const { scan } = kept;
  const placed = placeMessages(entries, scan, folded);
  if (placed.settled > scan.settled) {
    scan.settled = placed.settled;
    scan.placed = placed.messages.slice(0, placed.placedLength);
  }
  return { summary: scan.compaction?.summary, messages: placed.messages };
}
