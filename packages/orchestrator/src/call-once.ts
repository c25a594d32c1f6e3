import type { AttemptRecord, HealthPermit, ModelPort, ModelTarget, ToolCall } from '@keel/spec';
import { buildModelRequest } from './build-model-request';
import { modelKey } from './model-chain';
import type { Classification } from './orchestrator-options';
import { ReplyTooLargeError } from './reply-cap';
import { type AttemptProgress, createProgress, streamAttempt } from './stream-attempt';
import type { TurnProgress } from './turn-progress';
import type { LiveTurn, TurnRuntime, TurnSettings } from './turn-runtime';
import { emitTurnEvent } from './turn-steps';

/** The call's time limits for the target's model: its own settings win over the turn-wide ones. */
export function callTimeoutsOf(settings: TurnSettings, target: ModelTarget) {
  const own = settings.modelSettings.get(modelKey(target));
  return {
    ...settings.callTimeouts,
    ...(own?.firstTokenTimeoutMs === undefined
      ? {}
      : { firstTokenTimeoutMs: own.firstTokenTimeoutMs }),
    ...(own?.stallTimeoutMs === undefined ? {} : { stallTimeoutMs: own.stallTimeoutMs }),
  };
}

/** One attempt's result: its output, and the classified failure when it had one. */
export interface Attempt {
  attempt: number;
  target: ModelTarget;
  port: ModelPort;
  output: AttemptProgress;
  toolCalls: ToolCall[];
  /** Whether text reached the stream (a failure then needs a `discard`). */
  streamedText: boolean;
  classification: Classification | undefined;
  /** The call stopped at `maxReplyBytes` (`ReplyTooLargeError`): the turn ends with its own copy. */
  replyTooLarge?: true;
  /** The record to keep, without its number, end time or decision. */
  record: Omit<AttemptRecord, 'attempt' | 'endedAt'>;
}

/**
 * Sends one request: builds it from the transcript, lets the fence go, streams the model's
 * answer (SDK retries pinned to 0) and takes the fence back. A takeover noticed on the way back
 * outranks whatever the model did.
 */
export async function callOnce(
  runtime: TurnRuntime,
  turn: LiveTurn,
  progress: TurnProgress,
  target: ModelTarget,
  permit: Extract<HealthPermit, { allowed: true }>,
): Promise<Attempt> {
  const { clock, settings } = runtime;
  const signal = turn.controller.signal;
  const port = await runtime.router.connect(target);
  const attempt = progress.attempts.length + 1;
  const request = await buildModelRequest(
    runtime,
    turn,
    target,
    attempt,
    port.capabilities.runsOwnTools,
  );
  const startedAt = clock.now();
  const output = createProgress();
  let streamedText = false;
  emitTurnEvent(runtime, turn, { type: 'attempt-start', attempt, target, probe: permit.probe });

  let toolCalls: ToolCall[] = [];
  let failure: unknown;
  let sent = false;
  try {
    await turn.fence.release({ signal });
    sent = true;
    progress.requests += 1;
    toolCalls = await streamAttempt({
      port,
      request,
      now: clock.now,
      progress: output,
      maxReplyBytes: settings.maxReplyBytes,
      callOptions: {
        signal,
        maxRetries: 0,
        sessionId: turn.sessionId,
        ...callTimeoutsOf(settings, target),
      },
      onEvent(event) {
        if (event.type === 'binding-invalidated' || event.type === 'session-bound') {
          emitTurnEvent(runtime, turn, { type: 'binding', event });
          return;
        }
        if (event.type === 'text-delta' || event.type === 'refusal') streamedText = true;
        emitTurnEvent(runtime, turn, { type: 'model-event', attempt, event });
      },
    });
  } catch (error) {
    failure = error;
  }
  if (sent && !signal.aborted) {
    try {
      await turn.fence.reacquire({ signal });
    } catch (error) {
      failure = error;
    }
  }
  const classification = failure === undefined ? undefined : runtime.classify(failure, { signal });
  const firstTokenMs =
    output.firstOutputAt === undefined ? undefined : output.firstOutputAt - startedAt;
  return {
    attempt,
    target,
    port,
    output,
    toolCalls,
    streamedText,
    classification,
    ...(ReplyTooLargeError.isInstance(failure) ? { replyTooLarge: true as const } : {}),
    record: {
      target,
      startedAt,
      requestSent: sent,
      probe: permit.probe,
      outcome: classification === undefined ? 'ok' : 'error',
      ...(firstTokenMs === undefined ? {} : { firstTokenMs }),
      ...(output.usage === undefined ? {} : { usage: output.usage }),
    },
  };
}
