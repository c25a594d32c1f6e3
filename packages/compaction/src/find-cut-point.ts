import type { MessageEntry } from '@keel/spec';

export interface FindCutPointOptions {
  /** Recent context to keep verbatim, in tokens. */
  keepRecentTokens: number;
  /** Tokens of each message (same length as the messages). */
  tokens: readonly number[];
}

/** Index of the newest user message that asks something (holds text, not only tool results). */
export function findLatestUserRequest(messages: readonly MessageEntry[]): number {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role !== 'user') continue;
    if (message.content.some((block) => block.type === 'text')) return index;
  }
  return -1;
}

/**
 * Marks, for each cut position `i` (messages `[0, i)` compacted, `[i, n)` kept), whether a
 * tool_use / tool_result pair straddles it: its tool_use before `i` and its tool_result at or
 * after `i`. A result answers the nearest use of its id before it, so an id used again (after a
 * CLI resume, or by a provider that numbers per turn) pairs each result with its own call; a result
 * with no use before it pairs with nothing. Linear in the number of messages and blocks.
 */
export function findBlockedCuts(messages: readonly MessageEntry[]): Uint8Array {
  const count = messages.length;
  const latestUse = new Map<string, number>();
  // difference array over cut positions 0..count
  const delta = new Int32Array(count + 2);
  for (let index = 0; index < count; index += 1) {
    const content = messages[index]?.content ?? [];
    for (const block of content) {
      if (block.type !== 'tool_result') continue;
      const useIndex = latestUse.get(block.toolUseId);
      if (useIndex === undefined) continue;
      // cuts useIndex + 1 … index separate this pair
      delta[useIndex + 1] = (delta[useIndex + 1] ?? 0) + 1;
      delta[index + 1] = (delta[index + 1] ?? 0) - 1;
    }
    // uses are recorded after the message's results: a result answers a use before it
    for (const block of content) if (block.type === 'tool_use') latestUse.set(block.id, index);
  }
  const blocked = new Uint8Array(count + 1);
  let open = 0;
  for (let position = 0; position <= count; position += 1) {
    open += delta[position] ?? 0;
    blocked[position] = open > 0 ? 1 : 0;
  }
  return blocked;
}

/** What stopped every cut, when nothing can be compacted. */
export type CutBlocker = 'no-messages' | 'keep-recent' | 'latest-request' | 'tool-pair';

export interface CutPoint {
  /** Messages `[0, index)` are compacted, `[index, n)` kept. */
  index: number;
  /** When `index` is 0: the rule that held every cut back. */
  blockedBy?: CutBlocker;
}

/**
 * Where to cut: the largest index `i` such that messages `[i, n)` hold at least
 * `keepRecentTokens`, the latest user request is at or after `i`, and no tool pair straddles
 * `i`. Index 0 when nothing can be compacted, with the rule that held it back. Linear in the
 * number of messages and blocks.
 */
export function findCutPoint(
  messages: readonly MessageEntry[],
  options: FindCutPointOptions,
): CutPoint {
  if (messages.length === 0) return { index: 0, blockedBy: 'no-messages' };
  let limit = messages.length;
  let kept = 0;
  while (limit > 0 && kept < options.keepRecentTokens) {
    limit -= 1;
    kept += options.tokens[limit] ?? 0;
  }
  if (limit === 0) return { index: 0, blockedBy: 'keep-recent' };
  const latestRequest = findLatestUserRequest(messages);
  if (latestRequest === 0) return { index: 0, blockedBy: 'latest-request' };
  if (latestRequest > 0) limit = Math.min(limit, latestRequest);
  const blocked = findBlockedCuts(messages);
  for (let cut = limit; cut > 0; cut -= 1) {
    if (blocked[cut] === 0) return { index: cut };
  }
  return { index: 0, blockedBy: 'tool-pair' };
}
