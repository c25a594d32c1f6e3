import type { TranscriptEntry, TurnEntry } from '@keel/spec';
import type { TurnInput } from './run-turn';
import { type TranscriptFacts, transcriptFacts } from './transcript-facts';
import type { LiveTurn, TurnRuntime } from './turn-runtime';

/**
 * The facts a turn looks its input up in: the cached view's, unless the input may repeat a message
 * whose facts were let go with the entries before the live part (a client message id, or an
 * answer, kept only as a hash): then those of the whole transcript, read again (`whole`).
 */
export async function lookupFacts(
  runtime: TurnRuntime,
  turn: LiveTurn,
  input: TurnInput,
  facts: TranscriptFacts,
  signal: AbortSignal,
): Promise<{ facts: TranscriptFacts; whole: readonly TranscriptEntry[] | undefined }> {
  if (!mayRepeatForgotten(input, facts)) return { facts, whole: undefined };
  const { entries } = await runtime.storage.read(turn.sessionId, { signal });
  return { facts: transcriptFacts(entries), whole: entries };
}

function mayRepeatForgotten(input: TurnInput, facts: TranscriptFacts): boolean {
  if (input.type === 'existing') {
    const id = input.message.messageId;
    return !facts.answers.has(id) && facts.forgotAnswerTo(id);
  }
  const id = input.clientMessageId;
  return id !== undefined && !facts.byClientMessageId.has(id) && facts.forgotClientMessageId(id);
}

/**
 * Entries that hold a stored answer's reply (`storedOutcome` reads it from the turn's assistant
 * messages when its end does not carry it): the whole transcript when it was read, else the
 * turn's entries if they hold the answering turn from its start, else the whole, read again.
 */
export async function entriesWithReply(
  runtime: TurnRuntime,
  turn: LiveTurn,
  answer: TurnEntry,
  whole: readonly TranscriptEntry[] | undefined,
  signal: AbortSignal,
): Promise<readonly TranscriptEntry[]> {
  if (whole !== undefined) return whole;
  if (turn.entriesFrom === 0 || answer.text !== undefined || answer.outcome !== 'reply')
    return turn.entries;
  if (turn.entries.some((entry) => isStartOf(entry, answer.turnId))) return turn.entries;
  return (await runtime.storage.read(turn.sessionId, { signal })).entries;
}

function isStartOf(entry: TranscriptEntry, turnId: string): boolean {
  return entry.type === 'turn' && entry.phase === 'start' && entry.turnId === turnId;
}
