import type { CompactionEntry, Message, MessageEntry, TranscriptEntry } from '@keel/spec';

/**
 * The rules of `buildModelContext`, stated plainly as the property tests' oracle: every kept entry
 * gets a place, and the messages are sorted by it. Slow on purpose (whole transcript, a sort).
 * - Kept: after the latest compaction's kept entry (the nearest with its id, searched outwards from
 *   the compaction, before it; one after it, or none, keeps from the compaction on).
 * - A message that is not user input, or a user message with a turn start before it, or a legacy
 *   one (no turn entry before it): where it is.
 * - A user message with its turn start after it: at that start.
 * - A user message without a turn start that is folded in (by the caller or a turn entry's
 *   `steeredMessageIds`): just before the next message that is not tool results (or at the end).
 * - Any other user message: left out.
 */
export function referenceModelContext(
  entries: readonly TranscriptEntry[],
  folded: ReadonlySet<string> = new Set(),
): { summary: string | undefined; messages: Message[] } {
  const at = entries.map((entry) => entry.type).lastIndexOf('compaction');
  const compaction = at === -1 ? undefined : (entries[at] as CompactionEntry);
  let from = 0;
  if (compaction !== undefined) {
    from = at + 1;
    for (let distance = 1; distance < entries.length; distance += 1) {
      if (entries[at - distance]?.id === compaction.firstKeptEntryId) {
        from = at - distance;
        break;
      }
      if (entries[at + distance]?.id === compaction.firstKeptEntryId) break;
    }
  }
  const turnIndexes = entries.flatMap((entry, index) => (entry.type === 'turn' ? [index] : []));
  const firstTurn = turnIndexes.some((index) => index < from)
    ? 0
    : (turnIndexes.find((index) => index >= from) ?? -1);
  const kept = entries.slice(from);
  const steeredIds = new Set(folded);
  for (const entry of kept)
    if (entry.type === 'turn') for (const id of entry.steeredMessageIds ?? []) steeredIds.add(id);
  const startOf = (messageId: string) => {
    const offset = kept.findIndex(
      (entry) => entry.type === 'turn' && entry.phase === 'start' && entry.messageId === messageId,
    );
    return offset === -1 ? undefined : from + offset;
  };
  const isUser = (entry: MessageEntry) =>
    entry.role === 'user' && entry.content.some((block) => block.type !== 'tool_result');
  const onlyResults = (entry: MessageEntry) =>
    entry.role === 'tool' ||
    (entry.content.length > 0 && entry.content.every((block) => block.type === 'tool_result'));

  const placed: Array<{ at: number; before: boolean; index: number; entry: MessageEntry }> = [];
  kept.forEach((entry, offset) => {
    const index = from + offset;
    if (entry.type !== 'message') return;
    const start = startOf(entry.messageId);
    if (!isUser(entry)) placed.push({ at: index, before: false, index, entry });
    else if (start !== undefined && start > index)
      placed.push({ at: start, before: false, index, entry });
    else if (start !== undefined || firstTurn === -1 || index < firstTurn)
      placed.push({ at: index, before: false, index, entry });
    else if (steeredIds.has(entry.messageId)) {
      const next = kept.findIndex(
        (other, later) =>
          from + later > index &&
          other.type === 'message' &&
          (isUser(other) || !onlyResults(other)),
      );
      placed.push({ at: next === -1 ? entries.length : from + next, before: true, index, entry });
    }
  });
  placed.sort((a, b) => a.at - b.at || Number(b.before) - Number(a.before) || a.index - b.index);
  return {
    summary: compaction?.summary,
    messages: placed.map(({ entry }) => ({ role: entry.role, content: entry.content })),
  };
}
