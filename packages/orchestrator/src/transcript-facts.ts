import type { MessageEntry, TranscriptEntry, TurnEntry } from '@keel/spec';

/** What a transcript says about its user messages and the turns that answered them. */
export interface TranscriptFacts {
  /** The turn end that answered each user message (directly or by folding it in). */
  answers: Map<string, TurnEntry>;
  /** User message id by client message id. */
  byClientMessageId: Map<string, MessageEntry>;
  /** User messages no turn end answers, oldest first. */
  unanswered: MessageEntry[];
  /** The session's chosen model, from its last `model-selection` entry. */
  selectedModel: string | undefined;
}

/**
 * Reads the facts in one pass over the entries. A user message is pending until a turn end answers
 * it, except a legacy one: written before any turn entry and named by no turn (history, not input).
 */
export function transcriptFacts(entries: readonly TranscriptEntry[]): TranscriptFacts {
  const answers = new Map<string, TurnEntry>();
  const byClientMessageId = new Map<string, MessageEntry>();
  const named = new Set<string>();
  const users: Array<{ entry: MessageEntry; afterTurns: boolean }> = [];
  let seenTurn = false;
  let selectedModel: string | undefined;
  for (const entry of entries) {
    switch (entry.type) {
      case 'message':
        if (!isUserInput(entry)) break;
        users.push({ entry, afterTurns: seenTurn });
        if (entry.clientMessageId !== undefined)
          byClientMessageId.set(entry.clientMessageId, entry);
        break;
      case 'turn':
        seenTurn = true;
        if (entry.messageId !== undefined && entry.phase === 'start') named.add(entry.messageId);
        if (entry.phase !== 'end') break;
        if (entry.messageId !== undefined) answers.set(entry.messageId, entry);
        for (const id of entry.steeredMessageIds ?? []) answers.set(id, entry);
        break;
      case 'model-selection':
        selectedModel = entry.model;
        break;
      case 'compaction':
        break;
    }
  }
  const unanswered = users
    .filter(
      ({ entry, afterTurns }) =>
        !answers.has(entry.messageId) && (afterTurns || named.has(entry.messageId)),
    )
    .map(({ entry }) => entry);
  return { answers, byClientMessageId, unanswered, selectedModel };
}

/** A user message that carries input (text), not only tool results. */
export function isUserInput(entry: MessageEntry): boolean {
  return entry.role === 'user' && entry.content.some((block) => block.type !== 'tool_result');
}
