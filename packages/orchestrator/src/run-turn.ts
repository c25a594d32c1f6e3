import { userMessage } from '@keel/error-classification';
import type {
  ContentBlock,
  MessageEntry,
  TranscriptEntry,
  TurnEntry,
  TurnOutcome,
} from '@keel/spec';
import { abortEnding } from './abort-ending';
import { cachedView } from './cached-view';
import { holdTurnEvents } from './held-turn-events';
import { prepareTurn } from './prepare-turn';
import { replyTextOf } from './reply-text';
import { runModelCall } from './run-model-call';
import { runTools } from './run-tools';
import { entriesWithReply, lookupFacts } from './stored-answer';
import { type TranscriptView, transcriptView } from './transcript-cache';
import { createTurnProgress, type TurnEnding, type TurnProgress } from './turn-progress';
import type { LiveTurn, TurnRuntime } from './turn-runtime';
import { turnUsage } from './turn-usage';
import type { TurnJoining } from './waiting-messages';

/** The opening write's flush option with a new user message: its fsync runs while the model call does. */
const FLUSH_DEFERRED = { flush: 'deferred' } as const;
/**
 * Without one (a turn for a message already durable: queued, recovered), nobody is told anything
 * before the reply, whose flush covers the opening write too: it is not flushed on its own.
 */
const FLUSH_WITH_NEXT = { flush: 'with-next' } as const;

/** What a turn answers: a new user message, or one already in the transcript (queued, recovered). */
export type TurnInput = (
  | {
      type: 'new';
      content: ContentBlock[];
      clientMessageId?: string;
      /** See `RunTurnRequest.messageFlush` (undefined: `own`). */
      messageFlush?: 'own' | 'with-reply' | undefined;
    }
  | { type: 'existing'; message: MessageEntry }
) & {
  /** Messages waiting for this turn (`steer`): written with its message, folded into its first call. */
  joining?: TurnJoining;
};

/**
 * One turn, start to end: take the session, repair what a crash left, write the user message,
 * run model calls and tools until a reply or an ending, write the reply and the turn's end in one
 * append. Always resolves with exactly one outcome and emits exactly one `turn-end` (a repeated
 * `clientMessageId` resolves with the stored outcome and runs nothing). The fence is left to the
 * caller to end (`turn.fence.end()`): its last check cannot change the outcome, so the session
 * queue lets the answer go out first.
 */
export async function runTurn(
  runtime: TurnRuntime,
  turn: LiveTurn,
  input: TurnInput,
): Promise<TurnOutcome> {
  const { clock, settings } = runtime;
  // Nothing about the turn goes out before its message is durable (see `append`).
  const held = holdTurnEvents(runtime, turn.turnId);
  const { emitter } = held.runtime;
  const signal = turn.controller.signal;
  const deadline = setTimeout(() => {
    turn.stopReason ??= 'deadline';
    turn.controller.abort(new Error('turn deadline passed'));
  }, settings.turnTimeoutMs);
  deadline.unref?.();
  let progress: TurnProgress | undefined;
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    emitter.emit({
      sessionId: turn.sessionId,
      turnId: turn.turnId,
      at: clock.now(),
      type: 'turn-start',
      messageId: turn.messageId,
      ...(turn.clientMessageId === undefined ? {} : { clientMessageId: turn.clientMessageId }),
    });
  };

  let ending: TurnEnding;
  let toWrite: TranscriptEntry[] = [];
  let opened = false;
  // The message is flushed with the turn's last write (`messageFlush: 'with-reply'`): the events
  // wait for that write instead of the opening one's flush.
  let withReply = false;
  let view: TranscriptView | undefined;
  try {
    await turn.fence.acquire({ signal });
    view = await cachedView(runtime, turn, signal);
    if (view === undefined) {
      const read = await runtime.storage.read(turn.sessionId, { signal });
      view = transcriptView(read.entries, read.text);
    }
    turn.entries = view.entries;
    turn.entriesFrom = view.base;
    const facts = view.facts.advance(turn.entries, view.base);
    turn.facts = facts;
    const lookup = await lookupFacts(runtime, turn, input, facts, signal);
    const prepared = prepareTurn(runtime, turn, input, lookup.facts);
    if (prepared.stored !== undefined) {
      const { message, answer } = prepared.stored;
      const entries = await entriesWithReply(runtime, turn, answer, lookup.whole, signal);
      const stored = storedOutcome(message, answer, entries);
      turn.markPrepared();
      runtime.transcripts.put(turn.sessionId, turn.fence.state, view);
      turn.finished = true;
      return stored;
    }
    start();
    const joined = input.joining?.take(facts, turn) ?? [];
    withReply = input.type === 'new' && input.messageFlush === 'with-reply' && joined.length === 0;
    await append(joined.length === 0 ? prepared.entries : [...prepared.entries, ...joined]);
    // Announced through the turn's emitter: held, like its other events, until the write is durable.
    input.joining?.written(emitter);
    turn.markPrepared();
    // A selection of a model no longer configured is not honoured: the configured chain runs.
    const selected = facts.selectedModel;
    const selection =
      selected !== undefined && settings.selectable.has(selected) ? selected : settings.primary;
    progress = createTurnProgress(selection, settings, clock.now);
    const result = await runSteps(held.runtime, turn, progress);
    ending = result.ending;
    toWrite = result.finalEntries;
  } catch (error) {
    start();
    ending = endingForError(runtime, turn, error);
  } finally {
    clearTimeout(deadline);
  }
  const flushFailure = withReply ? undefined : await held.settled();
  if (flushFailure !== undefined) {
    // The message never became durable: the flush's error ends the turn, whatever else did.
    ending = endingForError(runtime, turn, flushFailure);
    toWrite = [];
  }

  let outcome = stamp(turn, ending, progress);
  let endFlushed = false;
  if (
    turn.fence.takeover === undefined &&
    (turn.fence.status === 'held' || turn.fence.status === 'released')
  ) {
    try {
      // A reply is stored once: in its messages, unless they would not give it back exactly.
      const once =
        outcome.kind === 'reply' &&
        [replyTextOf(turn.entries, turn.turnId), replyTextOf(toWrite, turn.turnId)]
          .filter((text) => text !== '')
          .join('\n\n') === outcome.text;
      await append([...toWrite, runtime.entries.turnEnd(outcome, { text: !once })], false);
      endFlushed = true;
    } catch (error) {
      outcome = stamp(
        turn,
        endingForError(runtime, turn, error, ending.kind === 'reply' ? ending.text : undefined),
        progress,
      );
    }
  }
  // The last write flushed the message too: the turn's events go out. Without it, nothing of the
  // turn but its start and end does.
  if (withReply)
    await held.open(
      endFlushed ? undefined : Promise.reject(new Error('the turn wrote no flushed end')),
    );
  if (turn.fence.takeover === undefined && view !== undefined)
    runtime.transcripts.put(turn.sessionId, turn.fence.state, view);
  turn.finished = true;
  emitter.emit({
    sessionId: turn.sessionId,
    turnId: turn.turnId,
    at: clock.now(),
    type: 'turn-end',
    outcome,
  });
  return outcome;

  async function append(entries: TranscriptEntry[], withSignal = true): Promise<void> {
    // The turn's opening write (its message) is flushed while the model call runs; the turn's
    // events wait for that flush (`held`), and the fence's next write waits for it too. With
    // `withReply` it is not flushed on its own: the last write's flush covers it.
    const opening = !opened;
    opened = true;
    const flush = !opening
      ? undefined
      : entries.some(isUserMessage) && !withReply
        ? FLUSH_DEFERRED
        : FLUSH_WITH_NEXT;
    // Never empty: the opening write holds the turn's start, the closing one the turn's end.
    const result = await turn.fence.append(
      entries,
      Object.assign({}, withSignal ? { signal } : undefined, flush),
    );
    turn.entries.push(...entries);
    if (opening && !withReply) void held.open(result.durable);
  }
}

/** Model calls and tool runs until a reply, the step cap or an ending. */
async function runSteps(
  runtime: TurnRuntime,
  turn: LiveTurn,
  progress: TurnProgress,
): Promise<{ ending: TurnEnding; finalEntries: TranscriptEntry[] }> {
  const texts: string[] = [];
  for (let step = 1; step <= runtime.settings.maxSteps; step += 1) {
    const call = await runModelCall(runtime, turn, progress);
    if (call.type === 'end') return { ending: call.ending, finalEntries: [] };
    const { target, output } = call;
    if (output.text !== '') texts.push(output.text);
    const model = `${target.providerId}/${target.model}`;
    const written = output.segments.map((segment, index) =>
      runtime.entries.message({
        role: segment.role,
        content: segment.content,
        turnId: turn.turnId,
        ...(segment.role === 'assistant' ? { model, provider: target.providerId } : {}),
        ...(index === output.segments.length - 1 && output.usage !== undefined
          ? { usage: output.usage }
          : {}),
      }),
    );
    if (call.toolCalls.length === 0) {
      return {
        ending: { kind: 'reply', text: texts.join('\n\n'), target },
        finalEntries: written,
      };
    }
    await turn.fence.append(written, { signal: turn.controller.signal });
    turn.entries.push(...written);
    const results = await runTools(runtime, turn, call.toolCalls);
    const answer = runtime.entries.message({ role: 'tool', content: results, turnId: turn.turnId });
    await turn.fence.append([answer], { signal: turn.controller.signal });
    turn.entries.push(answer);
  }
  runtime.emitter.emit({
    sessionId: turn.sessionId,
    turnId: turn.turnId,
    at: runtime.clock.now(),
    type: 'decision',
    label: 'final',
    reason: 'step_cap',
  });
  return {
    ending: { kind: 'error', text: runtime.settings.copy.stepCapReached, ...lastTarget(progress) },
    finalEntries: [],
  };
}

function lastTarget(progress: TurnProgress) {
  return progress.lastTarget === undefined ? {} : { target: progress.lastTarget };
}

/** A failure outside a model call's decisions: a takeover, a stop, a busy session, a bug. */
function endingForError(
  runtime: TurnRuntime,
  turn: LiveTurn,
  error: unknown,
  staleReply?: string,
): TurnEnding {
  const classification = runtime.classify(error, { signal: turn.controller.signal });
  switch (classification.kind) {
    case 'session_takeover':
      return {
        kind: 'resend',
        text: userMessage({ kind: 'session_takeover' }),
        errorKind: 'session_takeover',
        ...(staleReply === undefined || staleReply === '' ? {} : { staleReply }),
      };
    case 'caller_abort':
      return abortEnding(turn, runtime);
    default:
      break;
  }
  return {
    kind: 'error',
    text: userMessage({ kind: classification.kind }),
    errorKind: classification.kind,
  };
}

/** The outcome of a turn that failed before it ran here (waiting on another gateway's turn). */
export function outcomeForError(runtime: TurnRuntime, turn: LiveTurn, error: unknown): TurnOutcome {
  return stamp(turn, endingForError(runtime, turn, error), undefined);
}

function stamp(
  turn: LiveTurn,
  ending: TurnEnding,
  progress: TurnProgress | undefined,
): TurnOutcome {
  const { target, ...rest } = ending;
  const attempts = progress?.attempts ?? [];
  const usage = turnUsage(attempts);
  // Built on `{}`, not a spread (CONTRIBUTING.md, "Objects on the hot path"); same keys, same order.
  return Object.assign({}, rest, {
    messageId: turn.messageId,
    ...(turn.clientMessageId === undefined ? {} : { clientMessageId: turn.clientMessageId }),
    turnId: turn.turnId,
    ...(target === undefined
      ? {}
      : { model: `${target.providerId}/${target.model}`, provider: target.providerId }),
    ...(turn.folded.size === 0 ? {} : { steeredMessageIds: [...turn.folded] }),
    ...(usage === undefined ? {} : { usage }),
    attempts,
  });
}

/** The outcome a turn end stored, for a repeated `clientMessageId` (a reply from its messages). */
export function storedOutcome(
  message: MessageEntry,
  end: TurnEntry,
  entries: readonly TranscriptEntry[],
): TurnOutcome {
  return {
    kind: end.outcome ?? 'error',
    text: end.text ?? (end.outcome === 'reply' ? replyTextOf(entries, end.turnId) : ''),
    messageId: message.messageId,
    ...(message.clientMessageId === undefined ? {} : { clientMessageId: message.clientMessageId }),
    turnId: end.turnId,
    ...(end.model === undefined ? {} : { model: end.model }),
    ...(end.provider === undefined ? {} : { provider: end.provider }),
    ...(end.errorKind === undefined ? {} : { errorKind: end.errorKind }),
    ...(end.retryAfterMs === undefined ? {} : { retryAfterMs: end.retryAfterMs }),
    ...(end.usage === undefined ? {} : { usage: end.usage }),
    attempts: [],
  };
}

function isUserMessage(entry: TranscriptEntry): boolean {
  return entry.type === 'message' && entry.role === 'user';
}
