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
  /**
   * Whether a user message with this client message id may be among the entries let go
   * (`TranscriptFactsIndex.forget`): `byClientMessageId` no longer names it. Never wrong when it
   * says no; when it says yes, only the whole transcript tells (ids are kept as hashes).
   */
  forgotClientMessageId(clientMessageId: string): boolean;
  /** Whether a turn end let go of may answer this message: `answers` no longer holds it. */
  forgotAnswerTo(messageId: string): boolean;
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
   * Lets go of entries that were read (the oldest ones, before the transcript's live part): of a
   * client message id and of a message a turn end answered, the facts keep a 31-bit hash only
   * (`forgotClientMessageId`, `forgotAnswerTo`); a message still unanswered is kept whole. Returns
   * what the facts still hold of `dropped`, to be weighed: the entries kept and the hashes added.
   */
  forget(dropped: readonly TranscriptEntry[]): { kept: TranscriptEntry[]; hashes: number };
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
        // Only a legacy message's name counts (and all of them precede the first turn entry).
        if (entry.messageId !== undefined && entry.phase === 'start' && legacy.has(entry.messageId))
          named.add(entry.messageId);
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
    if (legacy.delete(messageId)) named.delete(messageId);
  };

  // Hashes of what was let go: client message ids, and ids of the messages answered.
  const forgottenClients = new Set<number>();
  const forgottenAnswers = new Set<number>();
  const forgetMessage = (entry: MessageEntry, kept: TranscriptEntry[]): number => {
    if (pending.get(entry.messageId) === entry || legacy.get(entry.messageId) === entry) {
      kept.push(entry);
      return 0;
    }
    const id = entry.clientMessageId;
    if (id === undefined || byClientMessageId.get(id) !== entry) return 0;
    byClientMessageId.delete(id);
    return grew(forgottenClients, hashOf(id));
  };
  const forgetEnd = (entry: TurnEntry): number => {
    let hashes = 0;
    for (const id of answeredBy(entry)) {
      if (answers.get(id) !== entry) continue;
      answers.delete(id);
      hashes += grew(forgottenAnswers, hashOf(id));
    }
    return hashes;
  };
  const forgotClientMessageId = (id: string) => forgottenClients.has(hashOf(id));
  const forgotAnswerTo = (id: string) => forgottenAnswers.has(hashOf(id));

  return {
    advance(entries, base = 0) {
      if (base + entries.length < seen || base > seen)
        throw new Error('a transcript facts index only grows');
      for (; seen < base + entries.length; seen += 1) read(entries[seen - base] as TranscriptEntry);
      const unanswered: MessageEntry[] = [];
      for (const [id, entry] of legacy) if (named.has(id)) unanswered.push(entry);
      for (const entry of pending.values()) unanswered.push(entry);
      return {
        answers,
        byClientMessageId,
        unanswered,
        selectedModel,
        forgotClientMessageId,
        forgotAnswerTo,
      };
    },
    forget(dropped) {
      const kept: TranscriptEntry[] = [];
      let hashes = 0;
      for (const entry of dropped) {
        if (entry.type === 'message' && isUserInput(entry)) hashes += forgetMessage(entry, kept);
        else if (entry.type === 'turn' && entry.phase === 'end') hashes += forgetEnd(entry);
      }
      return { kept, hashes };
    },
  };
}

function* answeredBy(end: TurnEntry): Iterable<string> {
  if (end.messageId !== undefined) yield end.messageId;
  if (end.steeredMessageIds !== undefined) yield* end.steeredMessageIds;
}

/** Adds `hash` to `set`: 1 when it was not there yet (the set grew), else 0. */
function grew(set: Set<number>, hash: number): number {
  const before = set.size;
  set.add(hash);
  return set.size - before;
}

/** FNV-1a over the id's UTF-16 code units, to 31 bits (a small integer: no heap of its own). */
function hashOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < id.length; index += 1) {
    hash ^= id.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 1;
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
