import type { MessageEntry, TurnOutcome } from '@keel/spec';
import { detachFromCaller } from './create-live-turn';
import type { SubmitRequest } from './session-queue';
import type { Slot } from './session-slot';
import type { TurnEmitter } from './turn-emitter';
import type { LiveTurn, TurnRuntime } from './turn-runtime';
import {
  createWaitingMessages,
  type JoinedMessage,
  type WaitingMessages,
} from './waiting-messages';

/** What joining the next turn needs of the session queue. */
export interface JoinNextDeps {
  runtime: TurnRuntime;
  slotOf(sessionId: string): Slot;
  /** A message the turn's entries hold already: announced as arrived. */
  announce(turn: LiveTurn, message: MessageEntry, emitter: TurnEmitter): void;
  /** The turn answering a message written for the turn `turnId`. */
  answerWritten(
    request: SubmitRequest,
    message: MessageEntry,
    turnId: string,
  ): Promise<TurnOutcome>;
  /** Queues a turn for the request's message, writing the `joining` messages with it. */
  enqueueNew(request: SubmitRequest, joining: WaitingMessages): Promise<TurnOutcome>;
}

/**
 * No turn able to take a write: the message waits for the session's next turn to write its own
 * message and is written with it (one write, one fsync for all); with none waiting, it opens the
 * wait with a turn of its own. `steer`: that turn folds it into its first model call and answers
 * it. `followup`: once written, it is answered by a turn of its own, queued at once (so in the
 * order the messages came), whose opening write needs no flush of its own.
 */
export function createJoinNext(deps: JoinNextDeps) {
  const { runtime, slotOf, announce, answerWritten, enqueueNew } = deps;
  const steer = runtime.settings.queueMode === 'steer';

  async function joinNext(request: SubmitRequest): Promise<TurnOutcome> {
    const build = () =>
      runtime.entries.message({
        role: 'user',
        content: request.content,
        clientMessageId: request.clientMessageId,
      });
    const options = { clientMessageId: request.clientMessageId, signal: request.signal };
    for (;;) {
      const slot = slotOf(request.sessionId);
      const joined = slot.waiting?.join(build, options);
      if (joined === undefined) {
        const waiting = createWaitingMessages((messages, turn, emitter) => {
          // It answers the others' messages too (`steer`): one caller leaving must not end it.
          if (steer) detachFromCaller(turn);
          for (const message of messages) announce(turn, message, emitter);
        });
        slot.waiting = waiting;
        const outcome = enqueueNew(request, waiting);
        waiting.answeredBy(outcome);
        const close = () => {
          waiting.close();
          if (slot.waiting === waiting) slot.waiting = undefined;
        };
        outcome.then(close, close);
        return outcome;
      }
      const result = await joined;
      if (result.type !== 'left') return answerJoined(request, result);
      // Left (the turn wrote nothing, or this is a repeat): the next wait, or a turn of its own.
    }
  }

  /** A message written with the turn it waited for: that turn's outcome, or a turn of its own. */
  async function answerJoined(
    request: SubmitRequest,
    joined: Exclude<JoinedMessage, { type: 'left' }>,
  ): Promise<TurnOutcome> {
    const { message } = joined;
    // `followup`: a turn of its own, queued now, while the turns behind it are not yet.
    if (!steer && joined.type === 'written') return answerWritten(request, message, joined.turnId);
    const unwatch =
      joined.type === 'written' && request.onEvent !== undefined
        ? runtime.emitter.watch(joined.turnId, request.onEvent)
        : undefined;
    let outcome: TurnOutcome;
    try {
      outcome = await joined.outcome;
    } finally {
      unwatch?.();
    }
    // Folded into that turn, or its write in doubt (it failed): the turn's outcome is its own.
    if (
      joined.type === 'failed' ||
      outcome.errorKind === 'storage' ||
      outcome.steeredMessageIds?.includes(message.messageId) === true
    ) {
      const { clientMessageId: _, ...rest } = outcome;
      const { messageId, clientMessageId } = message;
      return { ...rest, messageId, ...(clientMessageId === undefined ? {} : { clientMessageId }) };
    }
    // Written, never folded (the turn ended before its first model call): a turn of its own.
    return answerWritten(request, message, joined.turnId);
  }

  return joinNext;
}
