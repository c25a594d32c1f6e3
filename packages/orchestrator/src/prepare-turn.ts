import type { MessageEntry, TranscriptEntry, TurnEntry } from '@keel/spec';
import { MISSING_TOOL_RESULT } from './repair-tool-pairing';
import type { TurnInput } from './run-turn';
import { trailingOrphans } from './trailing-orphans';
import type { TranscriptFacts } from './transcript-facts';
import type { LiveTurn, TurnRuntime } from './turn-runtime';

export interface PreparedTurn {
  entries: TranscriptEntry[];
  /** A message answered already (a repeat): the turn end that answered it. */
  stored?: { message: MessageEntry; answer: TurnEntry };
}

/** The entries that open a turn: repairs for a crash's orphaned tool calls, the message, the start. */
export function prepareTurn(
  runtime: TurnRuntime,
  turn: LiveTurn,
  input: TurnInput,
  facts: TranscriptFacts,
): PreparedTurn {
  let message: MessageEntry | undefined;
  if (input.type === 'existing') {
    message = input.message;
  } else if (input.clientMessageId !== undefined) {
    message = facts.byClientMessageId.get(input.clientMessageId);
  }
  if (message !== undefined) {
    const answer = facts.answers.get(message.messageId);
    if (answer !== undefined) return { entries: [], stored: { message, answer } };
  }
  const entries: TranscriptEntry[] = [];
  const orphans = trailingOrphans(turn.entries);
  if (orphans.length > 0) {
    entries.push(
      runtime.entries.message({
        role: 'tool',
        turnId: turn.turnId,
        content: orphans.map((id) => ({
          type: 'tool_result',
          toolUseId: id,
          content: MISSING_TOOL_RESULT,
          isError: true,
        })),
      }),
    );
  }
  if (message === undefined && input.type === 'new') {
    message = runtime.entries.message({
      id: turn.messageId,
      role: 'user',
      content: input.content,
      turnId: turn.turnId,
      ...(input.clientMessageId === undefined ? {} : { clientMessageId: input.clientMessageId }),
    });
    entries.push(message);
  }
  if (message === undefined) throw new Error('a turn needs a message');
  turn.messageId = message.messageId;
  turn.clientMessageId = message.clientMessageId;
  entries.push(
    runtime.entries.turnStart({
      turnId: turn.turnId,
      messageId: message.messageId,
      ...(message.clientMessageId === undefined
        ? {}
        : { clientMessageId: message.clientMessageId }),
    }),
  );
  return { entries };
}
