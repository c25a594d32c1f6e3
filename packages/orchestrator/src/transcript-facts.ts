import type { MessageEntry, TranscriptEntry, TurnEntry } from '@keel/spec';

/** What a transcript says about its user messages and the turns that answered them. */
export interface TranscriptFacts {
  /** The turn end that answered each user message (directly or by folding it in). */
  readonly answers: ReadonlyMap<string, TurnEntry>;
  /** User message id by client message id. */
  readonly byClientMessageId: ReadonlyMap<string, MessageEntry>;
  /** User messages no turn end answers, oldest first. */
  readonly unanswered: MessageEntry[];
  /** The session's chosen model, from its last `model-selection` entry. */
  readonly selectedModel: string | undefined;
}

/**
 * The facts of a transcript that only grows, kept up to date entry by entry: `advance` reads the
 * entries it has not seen yet, so a turn pays for its own entries, not for the whole conversation.
 * A user message is pending until a turn end answers it, except a legacy one: written before any
 * turn entry and named by no turn (history, not input).
 */
export interface TranscriptFactsIndex {
  /**
   * Reads `entries` from where the last call stopped; they must extend what it saw. `base`: the
   * position in the transcript of `entries[0]`, when the entries before it were let go (`forget`).
   */
  advance(entries: readonly TranscriptEntry[], base?: number): TranscriptFacts;
  /**
   * Lets go of entries that were read (the oldest ones, before the transcript's live part): the
   * facts keep small copies of what they still need of them — a user message's ids without its
   * content (the context a model sees is built from the entries, not from these), an answer's turn
   * end without its own id and time. Returns what the facts now hold of `dropped` (to be weighed).
   */
  forget(dropped: readonly TranscriptEntry[]): TranscriptEntry[];
}

export function createTranscriptFactsIndex(): TranscriptFactsIndex {
  const answers = new Map<string, TurnEntry>();
  const byClientMessageId = new Map<string, MessageEntry>();
  // Unanswered user messages, in transcript order: legacy ones (before any turn entry) apart,
  // since they count only once a turn names them. Legacy messages all precede the others.
  const legacy = new Map<string, MessageEntry>();
  const named = new Set<string>();
  const pending = new Map<string, MessageEntry>();
  let seenTurn = false;
  let selectedModel: string | undefined;
  let seen = 0;

  const read = (entry: TranscriptEntry) => {
    switch (entry.type) {
      case 'message':
        if (!isUserInput(entry)) return;
        if (entry.clientMessageId !== undefined)
          byClientMessageId.set(entry.clientMessageId, entry);
        if (!answers.has(entry.messageId))
          (seenTurn ? pending : legacy).set(entry.messageId, entry);
        return;
      case 'turn':
        seenTurn = true;
        if (entry.messageId !== undefined && entry.phase === 'start') named.add(entry.messageId);
        if (entry.phase !== 'end') return;
        if (entry.messageId !== undefined) answer(entry.messageId, entry);
        for (const id of entry.steeredMessageIds ?? []) answer(id, entry);
        return;
      case 'model-selection':
        selectedModel = entry.model;
        return;
      case 'compaction':
        return;
    }
  };
  const answer = (messageId: string, end: TurnEntry) => {
    answers.set(messageId, end);
    pending.delete(messageId);
    legacy.delete(messageId);
  };

  const forgetMessage = (entry: MessageEntry, held: TranscriptEntry[]) => {
    let slim: MessageEntry | undefined;
    const id = entry.clientMessageId;
    for (const map of [pending, legacy]) {
      if (map.get(entry.messageId) !== entry) continue;
      slim ??= slimMessage(entry);
      map.set(entry.messageId, slim);
    }
    if (id !== undefined && byClientMessageId.get(id) === entry) {
      slim ??= slimMessage(entry);
      byClientMessageId.set(id, slim);
    }
    if (slim !== undefined) held.push(slim);
  };
  const forgetEnd = (entry: TurnEntry, held: TranscriptEntry[]) => {
    let slim: TurnEntry | undefined;
    for (const id of answeredBy(entry)) {
      if (answers.get(id) !== entry) continue;
      slim ??= slimEnd(entry);
      answers.set(id, slim);
    }
    if (slim !== undefined) held.push(slim);
  };

  return {
    advance(entries, base = 0) {
      if (base + entries.length < seen || base > seen)
        throw new Error('a transcript facts index only grows');
      for (; seen < base + entries.length; seen += 1) read(entries[seen - base] as TranscriptEntry);
      const unanswered: MessageEntry[] = [];
      for (const [id, entry] of legacy) if (named.has(id)) unanswered.push(entry);
      for (const entry of pending.values()) unanswered.push(entry);
      return { answers, byClientMessageId, unanswered, selectedModel };
    },
    forget(dropped) {
      const held: TranscriptEntry[] = [];
      for (const entry of dropped) {
        if (entry.type === 'message' && isUserInput(entry)) forgetMessage(entry, held);
        else if (entry.type === 'turn' && entry.phase === 'end') forgetEnd(entry, held);
      }
      return held;
    },
  };
}

function* answeredBy(end: TurnEntry): Iterable<string> {
  if (end.messageId !== undefined) yield end.messageId;
  if (end.steeredMessageIds !== undefined) yield* end.steeredMessageIds;
}

/** A user message's ids, without its content: what a repeat of it is told by. */
function slimMessage(entry: MessageEntry): MessageEntry {
  const { content: _content, ...ids } = entry;
  return { ...ids, content: [] };
}

/** A turn end as a stored answer reads it (`storedOutcome`): no entry id, time or steered ids. */
function slimEnd(entry: TurnEntry): TurnEntry {
  const { id: _id, timestamp: _timestamp, steeredMessageIds: _steered, ...answer } = entry;
  return { ...answer, id: '', timestamp: '' };
}

/** The facts of a whole transcript, read in one pass. */
export function transcriptFacts(entries: readonly TranscriptEntry[]): TranscriptFacts {
  return createTranscriptFactsIndex().advance(entries);
}

/** A user message that carries input (text), not only tool results. */
export function isUserInput(entry: MessageEntry): boolean {
  if (entry.role !== 'user') return false;
  for (const block of entry.content) if (block.type !== 'tool_result') return true;
  return false;
}
