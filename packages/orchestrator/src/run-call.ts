import { userMessage } from '@keel/error-classification';
import type { CallOutcome, ContentBlock, ModelRequest, TurnEvent, TurnOutcome } from '@keel/spec';
import { abortEnding } from './abort-ending';
import { callSettings } from './call-settings';
import { runModelCall } from './run-model-call';
import { createStatelessFence } from './stateless-fence';
import type { AttemptSegment } from './stream-attempt';
import { createTurnProgress, type TurnEnding } from './turn-progress';
import type { LiveTurn, TurnRuntime } from './turn-runtime';
import { emitTurnEvent } from './turn-steps';
import { turnUsage } from './turn-usage';

/** One stateless call: the conversation a client sent, and where it may go. */
export interface RunCallRequest {
  /** The whole conversation, as the client sent it (its tools included); nothing is stored. */
  request: Omit<ModelRequest, 'model'>;
  /** The candidates, in order; default the orchestrator's `models`. */
  route?: { primary: string; fallbacks?: readonly string[] };
  /** The call's ephemeral id, its events' `sessionId`; default `call-<id>`. */
  callId?: string;
  signal?: AbortSignal;
  /** This call's events, as they happen (also sent to every observer). */
  onEvent?: (event: TurnEvent) => void;
}

/**
 * Runs one stateless call: one model call with every retry, rotation, fallback, wait and
 * decision a session turn makes, over the client's own conversation. Nothing is read or written;
 * the model's tool calls go back to the client (never run here); a context overflow falls over to a
 * larger window (there is nothing to compact). Resolves with exactly one outcome and emits one
 * `turn-start` and one `turn-end`, like a turn.
 */
export async function runCall(
  runtime: TurnRuntime,
  call: RunCallRequest,
  live: Set<LiveTurn>,
): Promise<CallOutcome> {
  const route = call.route ?? { primary: runtime.settings.primary };
  const callRuntime: TurnRuntime = {
    ...runtime,
    compactor: undefined,
    tools: undefined,
    settings: callSettings(runtime.settings, route),
  };
  const callId = call.callId ?? `call-${runtime.createId()}`;
  const turn = createCallTurn(runtime, callId, call);
  live.add(turn);
  const unwatch =
    call.onEvent === undefined ? undefined : runtime.emitter.watch(turn.turnId, call.onEvent);
  const deadline = setTimeout(() => {
    turn.stopReason ??= 'deadline';
    turn.controller.abort(new Error('turn deadline passed'));
  }, runtime.settings.turnTimeoutMs);
  deadline.unref?.();
  const progress = createTurnProgress(route.primary, callRuntime.settings, runtime.clock.now);
  emitTurnEvent(runtime, turn, { type: 'turn-start', messageId: callId });
  let ending: TurnEnding;
  let content: ContentBlock[] = [];
  let finish: CallOutcome['finish'];
  try {
    await turn.fence.acquire();
    const result = await runModelCall(callRuntime, turn, progress);
    if (result.type === 'end') {
      ending = result.ending;
    } else {
      content = clientContent(result.output.segments);
      finish = result.output.finish;
      ending = { kind: 'reply', text: result.output.text, target: result.target };
    }
  } catch (error) {
    const kind = runtime.classify(error, {}).kind;
    ending = turn.controller.signal.aborted
      ? abortEnding(turn, runtime)
      : { kind: 'error', text: userMessage({ kind }), errorKind: kind };
  } finally {
    clearTimeout(deadline);
    call.signal?.removeEventListener('abort', turn.onCallerAbort);
    await turn.fence.end();
    live.delete(turn);
  }
  const { target, ...rest } = ending;
  const usage = turnUsage(progress.attempts);
  // Built on `{}`, not a spread (CONTRIBUTING.md, "Objects on the hot path"); same keys, same order.
  const outcome: CallOutcome = Object.assign({}, rest, {
    content,
    ...(finish === undefined ? {} : { finish }),
    callId,
    turnId: turn.turnId,
    ...(target === undefined
      ? {}
      : { model: `${target.providerId}/${target.model}`, provider: target.providerId }),
    ...(usage === undefined ? {} : { usage }),
    attempts: progress.attempts,
  });
  const { content: _content, finish: _finish, callId: _callId, ...asTurn } = outcome;
  emitTurnEvent(runtime, turn, {
    type: 'turn-end',
    outcome: Object.assign({}, asTurn, { messageId: callId }) satisfies TurnOutcome,
  });
  unwatch?.();
  return outcome;
}

function createCallTurn(
  runtime: TurnRuntime,
  callId: string,
  call: RunCallRequest,
): LiveTurn & { onCallerAbort: () => void } {
  const controller = new AbortController();
  const onCallerAbort = () => controller.abort(call.signal?.reason);
  if (call.signal?.aborted) controller.abort(call.signal.reason);
  else call.signal?.addEventListener('abort', onCallerAbort, { once: true });
  return {
    sessionId: callId,
    turnId: runtime.createId(),
    messageId: callId,
    clientMessageId: undefined,
    fence: createStatelessFence(callId),
    entries: [],
    entriesFrom: 0,
    facts: undefined,
    arrived: [],
    folded: new Set(),
    requestedModel: undefined,
    controller,
    stopReason: undefined,
    finished: false,
    prepared: Promise.resolve(),
    markPrepared: () => undefined,
    request: call.request,
    onCallerAbort,
  };
}

/**
 * What the client gets back: the assistant's blocks, without the tool calls a port that runs its
 * own tools (the Claude Code CLI) answered within the call. The client could not pair them with a
 * result, and sent back in its next request an unpaired `tool_use` is refused by the provider (400).
 */
function clientContent(segments: readonly AttemptSegment[]): ContentBlock[] {
  const answered = new Set(
    segments.flatMap((segment) =>
      segment.role === 'tool'
        ? segment.content.flatMap((block) =>
            block.type === 'tool_result' ? [block.toolUseId] : [],
          )
        : [],
    ),
  );
  return segments.flatMap((segment) =>
    segment.role === 'assistant'
      ? segment.content.filter((block) => block.type !== 'tool_use' || !answered.has(block.id))
      : [],
  );
}
