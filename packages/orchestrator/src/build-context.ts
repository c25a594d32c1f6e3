import type { CompactionEntry, Message, MessageEntry, TranscriptEntry } from '@keel/spec';
import { isUserInput } from './transcript-facts';

/** The part of a transcript a model sees: the latest summary and the messages after it. */
export interface ModelContext {
  /** The latest compaction's summary, when there is one. */
  summary: string | undefined;
  messages: Message[];
}

export interface BuildContextOptions {
  /** Messages the running turn folds in (`steer`), besides those its transcript already lists. */
  folded?: ReadonlySet<string>;
}

/**
 * Turns a transcript into the conversation a model is shown, in the order it happened:
 * - only what the latest compaction kept (from its `firstKeptEntryId`), its summary apart;
 * - a user message is placed where the turn answering it started (a message queued while another
 *   turn ran sits after that turn's exchange, not inside it);
 * - a message folded into a running turn (`steer`) is placed after the tool results that were
 *   pending when it arrived, so it never splits a tool call from its result;
 * - a user message no turn has started for yet is left out: its own turn will answer it;
 * - legacy user messages written before any turn entry stay where they are.
 */
export function buildModelContext(
  entries: readonly TranscriptEntry[],
  options: BuildContextOptions = {},
): ModelContext {
  const scan = scanContext(entries);
  return {
    summary: scan.compaction?.summary,
    messages: placeMessages(entries, scan, options.folded).messages,
  };
}

/**
 * What a pass over a transcript's kept part knows, and how far its messages are placed for good:
 * `modelContextOf` keeps one per transcript array and carries it on as entries are appended.
 */
export interface ContextScan {
  /** The latest compaction. */
  readonly compaction: CompactionEntry | undefined;
  /** Where its kept entries begin. */
  readonly from: number;
  /** Entries read so far (`entries.length` at the last scan). */
  scanned: number;
  /** The first turn entry from `from` on (0: one precedes `from`; -1: none yet). */
  firstTurn: number;
  /** Each message's first turn start. */
  readonly startOf: Map<string, number>;
  /** Messages a turn entry says it folded in (`steeredMessageIds`). */
  readonly steered: Set<string>;
  /**
   * Entries before this index (from `from`) are placed for good: no entry appended later can move
   * or drop what they give, whatever is folded — `placed` are their messages.
   */
  settled: number;
  placed: Message[];
}

/** Scans a transcript's kept part (see `ContextScan`), nothing placed yet. */
export function scanContext(entries: readonly TranscriptEntry[]): ContextScan {
  const compaction = findLast(entries, (entry) => entry.type === 'compaction') as
    | CompactionEntry
    | undefined;
  const from = keptFrom(entries, compaction);
  // Only the kept entries are read, so a turn's cost does not grow with what was compacted away: a
  // kept message's turn start, and the turn that folded it in, both come after it. Before `from`,
  // all that matters is whether any turn entry exists (then no kept message is legacy).
  const scan: ContextScan = {
    compaction,
    from,
    scanned: from,
    firstTurn: hasTurnBefore(entries, from) ? 0 : -1,
    startOf: new Map(),
    steered: new Set(),
    settled: from,
    placed: [],
  };
  readTurns(entries, scan);
  return scan;
}

/**
 * Reads the entries appended since the scan; `false` when one moves the kept part (scan again): a
 * newer compaction, or an entry with the id the compaction kept from — nearer to it than the kept
 * one, it would move where the kept part begins (`keptFrom` searches outwards; ids are unique in
 * what Keel writes, a transcript written elsewhere may repeat one).
 */
export function scanMore(entries: readonly TranscriptEntry[], scan: ContextScan): boolean {
  const keptId = scan.compaction?.firstKeptEntryId;
  for (let index = scan.scanned; index < entries.length; index += 1) {
    const entry = entries[index] as TranscriptEntry;
    if (entry.type === 'compaction' || entry.id === keptId) return false;
  }
  readTurns(entries, scan);
  return true;
}

/** Reads the turn entries after `scan.scanned` into the scan; older compactions are skipped. */
function readTurns(entries: readonly TranscriptEntry[], scan: ContextScan): void {
  for (let index = scan.scanned; index < entries.length; index += 1) {
    const entry = entries[index] as TranscriptEntry;
    if (entry.type !== 'turn') continue;
    if (scan.firstTurn === -1) scan.firstTurn = index;
    if (
      entry.phase === 'start' &&
      entry.messageId !== undefined &&
      !scan.startOf.has(entry.messageId)
    )
      scan.startOf.set(entry.messageId, index);
    if (entry.steeredMessageIds !== undefined)
      for (const id of entry.steeredMessageIds) scan.steered.add(id);
  }
  scan.scanned = entries.length;
}

/**
 * Places the messages of the entries after `scan.settled` after `scan.placed` (see
 * `buildModelContext` for where each goes), and how far the result is placed for good: up to the
 * first user message placed without a turn start (legacy, folded in or left out — a start written
 * later would move it), with no message waiting for its turn start.
 */
export function placeMessages(
  entries: readonly TranscriptEntry[],
  scan: ContextScan,
  folded: ReadonlySet<string> | undefined,
): { messages: Message[]; settled: number; placedLength: number } {
  const { startOf, firstTurn } = scan;
  const messages = scan.placed.slice();
  const waitingForStart = new Map<number, MessageEntry[]>();
  let waiting = 0;
  let steered: MessageEntry[] = [];
  const push = (entry: MessageEntry) => messages.push({ role: entry.role, content: entry.content });
  const flushSteered = () => {
    for (const entry of steered) push(entry);
    steered = [];
  };
  let open = false;
  let settled = scan.settled;
  let placedLength = messages.length;
  for (let index = scan.settled; index < entries.length; index += 1) {
    const entry = entries[index] as TranscriptEntry;
    if (entry.type === 'turn') {
      const list = entry.phase === 'start' ? waitingForStart.get(index) : undefined;
      if (list !== undefined) {
        for (const message of list) push(message);
        waiting -= list.length;
      }
    } else if (entry.type === 'message') {
      if (!isUserInput(entry)) {
        if (entry.role !== 'tool' && !isToolResultsOnly(entry)) flushSteered();
        push(entry);
      } else {
        flushSteered();
        const start = startOf.get(entry.messageId);
        // A message's own entry precedes its turn start, so a start after it is in the kept part.
        if (start !== undefined && start > index) {
          const list = waitingForStart.get(start) ?? [];
          list.push(entry);
          waitingForStart.set(start, list);
          waiting += 1;
        } else if (start !== undefined) {
          push(entry);
        } else {
          open = true;
          if (firstTurn === -1 || index < firstTurn) push(entry);
          else if (folded?.has(entry.messageId) === true || scan.steered.has(entry.messageId))
            steered.push(entry);
          // Otherwise pending: left out until its own turn.
        }
      }
    }
    if (!open && waiting === 0) {
      settled = index + 1;
      placedLength = messages.length;
    }
  }
  flushSteered();
  return { messages, settled, placedLength };
}

/**
 * Where a transcript's live part begins: every entry from there on is enough for what a turn
 * reads of its transcript besides its facts — `buildModelContext` (the latest compaction, its kept
 * entries, and whether a turn entry precedes them) and `trailingOrphans` (the last assistant
 * message) give the same from `entries.slice(liveStart(entries))` as from `entries`. 0 for a
 * transcript never compacted: all of it is live.
 */
export function liveStart(entries: readonly TranscriptEntry[]): number {
  const compaction = findLast(entries, (entry) => entry.type === 'compaction') as
    | CompactionEntry
    | undefined;
  if (compaction === undefined) return 0;
  // The compaction itself (its summary), wherever its kept part begins.
  let start = Math.min(keptFrom(entries, compaction), entries.lastIndexOf(compaction));
  for (let index = start - 1; index >= 0; index -= 1) {
    if ((entries[index] as TranscriptEntry).type !== 'turn') continue;
    start = index;
    break;
  }
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const entry = entries[index] as TranscriptEntry;
    if (entry.type !== 'message' || entry.role !== 'assistant') continue;
    return Math.min(start, index);
  }
  return start;
}

/** Where the entries the latest compaction kept begin (compaction entries themselves are skipped). */
function keptFrom(
  entries: readonly TranscriptEntry[],
  compaction: CompactionEntry | undefined,
): number {
  if (compaction === undefined) return 0;
  const at = entries.lastIndexOf(compaction);
  const id = compaction.firstKeptEntryId;
  // The kept entry precedes its compaction (as `@keel/compaction` writes it); one that follows it
  // counts as none (kept from the compaction on). Searched outwards from the compaction, either is
  // found in the kept part's length, not the transcript's.
  for (
    let distance = 1;
    id !== null && distance <= Math.max(at, entries.length - at);
    distance += 1
  ) {
    if (entries[at - distance]?.id === id) return at - distance;
    if (entries[at + distance]?.id === id) return at + 1;
  }
  return at + 1;
}

/** Whether a turn entry comes before `end`; read backwards, so it stops at the latest one. */
function hasTurnBefore(entries: readonly TranscriptEntry[], end: number): boolean {
  for (let index = end - 1; index >= 0; index -= 1)
    if ((entries[index] as TranscriptEntry).type === 'turn') return true;
  return false;
}

function isToolResultsOnly(entry: MessageEntry): boolean {
  return entry.content.length > 0 && entry.content.every((block) => block.type === 'tool_result');
}

function findLast<T>(items: readonly T[], predicate: (item: T) => boolean): T | undefined {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index] as T;
    if (predicate(item)) return item;
  }
  return undefined;
}
