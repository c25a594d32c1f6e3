import type { MessageEntry, TranscriptEntry } from '@keel/spec';

export interface CompactionContext {
  /** The summary of the newest compaction entry, if any. */
  previousSummary: string | undefined;
  /** Messages still in context after the newest compaction, oldest first. */
  messages: MessageEntry[];
}

/**
 * What a model sees of a transcript: the newest compaction's summary, then the messages from
 * its `firstKeptEntryId` on (those before the compaction entry and those appended after it).
 * Provider usage recorded before the newest compaction is dropped: it measured a larger context.
 */
export function selectContext(entries: readonly TranscriptEntry[]): CompactionContext {
  let compactionIndex = -1;
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    if (entries[index]?.type === 'compaction') {
      compactionIndex = index;
      break;
    }
  }
  const compaction = entries[compactionIndex];
  if (compaction === undefined || compaction.type !== 'compaction') {
    const messages: MessageEntry[] = [];
    for (const entry of entries) if (entry.type === 'message') messages.push(entry);
    return { previousSummary: undefined, messages };
  }
  let start = compactionIndex + 1;
  if (compaction.firstKeptEntryId !== null) {
    for (let index = 0; index < compactionIndex; index += 1) {
      if (entries[index]?.id === compaction.firstKeptEntryId) {
        start = index;
        break;
      }
    }
  }
  const messages: MessageEntry[] = [];
  for (let index = start; index < entries.length; index += 1) {
    const entry = entries[index];
    if (entry?.type !== 'message') continue;
    if (index < compactionIndex && entry.usage !== undefined) {
      const { usage: _stale, ...rest } = entry;
      messages.push(rest);
    } else {
      messages.push(entry);
    }
  }
  return { previousSummary: compaction.summary, messages };
}
