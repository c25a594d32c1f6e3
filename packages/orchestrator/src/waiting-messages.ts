import type { MessageEntry, TurnOutcome } from '@keel/spec';
import type { TranscriptFacts } from './transcript-facts';
import type { TurnEmitter } from './turn-emitter';
import type { LiveTurn } from './turn-runtime';

/** What became of a message that waited for a session's next turn. */
export type JoinedMessage =
  /** Written with the turn's own message (`steer`: to be folded into its first model call). */
  | { type: 'written'; message: MessageEntry; turnId: string; outcome: Promise<TurnOutcome> }
  /** Not taken (the turn ended before it wrote its message, or the message is a repeat). */
  | { type: 'left' }
  /** Taken, but the write that carried it failed: it shares the turn's outcome. */
  | { type: 'failed'; message: MessageEntry; outcome: Promise<TurnOutcome> };

/** The part a turn sees: what to write with its own message, and when that write succeeded. */
export interface TurnJoining {
  /** Called once, as the turn writes its message: the waiting messages to write after its start. */
  take(facts: TranscriptFacts, turn: LiveTurn): MessageEntry[];
  /**
   * The write carrying what `take` returned succeeded; the messages are announced through
   * `emitter` (the turn's own, which holds its events until its message is durable).
   */
  written(emitter: TurnEmitter): void;
  /**
   * The turn will write nothing here (its session's turn runs at another gateway): the messages
   * waiting are left at once, each to find its own way, instead of waiting for the turn's answer.
   */
  letGo(): void;
}

export interface JoinOptions {
  clientMessageId?: string | undefined;
  /** A message whose caller gave up before the turn took it is left. */
  signal?: AbortSignal | undefined;
}

export interface WaitingMessages extends TurnJoining {
  /** Adds a message while the turn has not taken them yet; `undefined` once it has (or is closed). */
  join(build: () => MessageEntry, options: JoinOptions): Promise<JoinedMessage> | undefined;
  /** The outcome of the turn that takes the messages. */
  answeredBy(outcome: Promise<TurnOutcome>): void;
  /** The turn ended: a message never taken is left, one taken but never written failed. */
  close(): void;
}

interface Waiting extends JoinOptions {
  build: () => MessageEntry;
  settle: (joined: JoinedMessage) => void;
}

/**
 * Messages that arrive for a session whose next turn has not written its own message yet.
 * Without this each waits for a turn of its own, every one making its own writes; with it they are
 * written in that turn's first append (one write, one fsync: group commit) right after its start,
 * and (`steer`) folded into its first model call, which sees them all, or (`followup`) answered
 * each by a turn of its own. A repeat of a message the transcript holds is left to its own turn,
 * which answers it from the transcript.
 */
export function createWaitingMessages(
  onWritten: (messages: MessageEntry[], turn: LiveTurn, emitter: TurnEmitter) => void,
): WaitingMessages {
  let waiting: Waiting[] | undefined = [];
  let taken: Array<{ entry: Waiting; message: MessageEntry }> = [];
  let takenBy: LiveTurn | undefined;
  let outcome: Promise<TurnOutcome> = new Promise<TurnOutcome>(() => undefined);
  return {
    join(build, options) {
      const list = waiting;
      if (list === undefined) return undefined;
      return new Promise<JoinedMessage>((settle) => list.push({ ...options, build, settle }));
    },
    take(facts, turn) {
      const list = waiting ?? [];
      waiting = undefined;
      takenBy = turn;
      for (const entry of list) {
        const { clientMessageId, signal } = entry;
        // One let go with the entries before the live part may be a repeat too: it is left, and
        // its own turn tells (from the whole transcript).
        const repeat =
          clientMessageId !== undefined &&
          (facts.byClientMessageId.has(clientMessageId) ||
            facts.forgotClientMessageId(clientMessageId));
        if (repeat || signal?.aborted === true) entry.settle({ type: 'left' });
        else taken.push({ entry, message: entry.build() });
      }
      return taken.map(({ message }) => message);
    },
    written(emitter) {
      const done = taken;
      taken = [];
      if (takenBy === undefined || done.length === 0) return;
      const { turnId } = takenBy;
      onWritten(
        done.map(({ message }) => message),
        takenBy,
        emitter,
      );
      for (const { entry, message } of done)
        entry.settle({ type: 'written', message, turnId, outcome });
    },
    letGo() {
      for (const entry of waiting ?? []) entry.settle({ type: 'left' });
      waiting = undefined;
    },
    answeredBy(answer) {
      outcome = answer;
    },
    close() {
      for (const entry of waiting ?? []) entry.settle({ type: 'left' });
      waiting = undefined;
      for (const { entry, message } of taken) entry.settle({ type: 'failed', message, outcome });
      taken = [];
    },
  };
}
