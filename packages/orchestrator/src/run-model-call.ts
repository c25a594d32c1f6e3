import { userMessage } from '@keel/error-classification';
import type { AttemptRecord, HealthReport, ModelPort, ModelTarget, ToolCall } from '@keel/spec';
import { buildModelRequest } from './build-model-request';
import { decide } from './decide';
import { applySwitch } from './live-switch';
import type { Classification } from './orchestrator-options';
import { permitHealth, reportHealth } from './report-health';
import { runCompaction } from './run-compaction';
import { type AttemptProgress, createProgress, streamAttempt } from './stream-attempt';
import type { TurnEnding, TurnProgress } from './turn-progress';
import type { LiveTurn, TurnRuntime } from './turn-runtime';

/** A model call that produced output, ready to be written. */
export interface CallSuccess {
  type: 'ok';
  target: ModelTarget;
  port: ModelPort;
  output: AttemptProgress;
  toolCalls: ToolCall[];
}

export type CallResult = CallSuccess | { type: 'end'; ending: TurnEnding };

/**
 * One model call of a turn, with every retry, rotation, fallback, wait and compaction it takes
 * to get an answer — or the ending when there is none to be had. The fence is held on entry and
 * on return.
 */
export async function runModelCall(
  runtime: TurnRuntime,
  turn: LiveTurn,
  progress: TurnProgress,
): Promise<CallResult> {
  const { settings, clock } = runtime;
  const signal = turn.controller.signal;
  const emit = runtime.emitter.emit;
  const base = () => ({ sessionId: turn.sessionId, turnId: turn.turnId, at: clock.now() });
  let thresholdChecked = false;

  for (;;) {
    if (progress.requests >= settings.requestCeiling) {
      emit({ ...base(), type: 'decision', label: 'final', reason: 'request_ceiling' });
      return end('error', settings.copy.stepCapReached);
    }
    const switched = await applySwitch(runtime, turn, progress);
    if (switched !== undefined) return { type: 'end', ending: switched };

    const target = progress.plan.next();
    if (target === undefined) {
      const waited = await waitOrEnd();
      if (waited !== undefined) return { type: 'end', ending: waited };
      continue;
    }
    const permit = await permitHealth(runtime, turn, target);
    if (!permit.allowed) {
      record({
        target,
        startedAt: clock.now(),
        requestSent: false,
        probe: false,
        outcome: 'skipped',
      });
      if (permit.reason === 'profile-cooling') progress.plan.blockProfile(target, permit.waitMs);
      else progress.plan.skipModel(target, permit.waitMs);
      progress.lastSkip = {
        target,
        kind: permit.reason === 'profile-cooling' ? 'rate_limit' : 'overloaded',
      };
      continue;
    }

    if (!thresholdChecked) {
      thresholdChecked = true;
      await runCompaction(runtime, turn, progress, 'threshold');
    }

    const port = await runtime.router.connect(target);
    const request = await buildModelRequest(runtime, turn, target, progress.attempts.length + 1);
    const attempt = progress.attempts.length + 1;
    const startedAt = clock.now();
    const output = createProgress();
    let streamedText = false;
    emit({ ...base(), type: 'attempt-start', attempt, target, probe: permit.probe });

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
        callOptions: {
          signal,
          maxRetries: 0,
          sessionId: turn.sessionId,
          ...settings.callTimeouts,
        },
        onEvent(event) {
          if (event.type === 'binding-invalidated' || event.type === 'session-bound') {
            emit({ ...base(), type: 'binding', event });
            return;
          }
          if (event.type === 'text-delta' || event.type === 'refusal') streamedText = true;
          emit({ ...base(), type: 'model-event', attempt, event });
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
    const classification =
      failure === undefined ? undefined : runtime.classify(failure, { signal });
    const firstTokenMs =
      output.firstOutputAt === undefined ? undefined : output.firstOutputAt - startedAt;
    const attemptRecord: Omit<AttemptRecord, 'attempt' | 'endedAt'> = {
      target,
      startedAt,
      requestSent: sent,
      probe: permit.probe,
      outcome: classification === undefined ? 'ok' : 'error',
      ...(firstTokenMs === undefined ? {} : { firstTokenMs }),
    };
    progress.lastTarget = target;

    if (classification === undefined) {
      await reportHealth(runtime, turn, { type: 'success', target, probe: permit.probe });
      record(attemptRecord);
      return { type: 'ok', target, port, output, toolCalls };
    }

    progress.lastError = classification;
    emit({
      ...base(),
      type: 'attempt-error',
      attempt,
      target,
      kind: classification.kind,
      ...(classification.status === undefined ? {} : { status: classification.status }),
      ...(classification.retryAfterMs === undefined
        ? {}
        : { retryAfterMs: classification.retryAfterMs }),
      ...(classification.message === undefined ? {} : { message: classification.message }),
    });
    await reportHealth(runtime, turn, {
      type: 'failure',
      target,
      kind: classification.kind,
      probe: permit.probe,
      ...longestRetryAfter(classification),
    });
    if (streamedText) emit({ ...base(), type: 'discard', attempt, reason: classification.kind });

    // A model the user switched to during this attempt takes precedence over the kind's decision
    // (not over a takeover, a stop or a busy session, which end the turn either way).
    if (switchPending(turn, progress) && !SWITCH_PROOF.has(classification.kind)) {
      record({ ...attemptRecord, ...errorFields(classification), decision: 'switch_model' });
      continue;
    }

    const giveUps: HealthReport[] = [];
    const decision = decide({
      classification,
      target,
      plan: progress.plan,
      compactions: progress.compactions,
      canCompact: runtime.compactor !== undefined,
      waits: progress.waits,
      settings,
      random: runtime.random,
      onOverloadGiveUp(retryAfterMs) {
        giveUps.push({
          type: 'overloaded',
          target,
          ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        });
      },
    });
    for (const report of giveUps) await reportHealth(runtime, turn, report);
    const decided = (label: AttemptRecord['decision'], extra: object = {}) => {
      record({ ...attemptRecord, ...errorFields(classification), decision: label });
      emit({
        ...base(),
        type: 'decision',
        label: label ?? 'final',
        from: target,
        reason: classification.kind,
        ...extra,
      });
    };

    switch (decision.label) {
      case 'retry_same':
        decided('retry_same', { to: target, delayMs: decision.delayMs });
        await clock.sleep(decision.delayMs, signal);
        continue;
      case 'rotate_profile':
      case 'fallback_model': {
        const next = progress.plan.next();
        decided(decision.label, next === undefined ? {} : { to: next });
        continue;
      }
      case 'wait':
        decided('wait', { delayMs: decision.delayMs });
        progress.waits += 1;
        await clock.sleep(decision.delayMs, signal);
        progress.plan.newPass();
        continue;
      case 'compact_and_retry': {
        decided('compact_and_retry', { to: target });
        const result = await runCompaction(runtime, turn, progress, 'overflow');
        if (result.type !== 'compacted') {
          return end('error', settings.copy.compactionFailed, {
            errorKind: 'context_overflow',
            target,
          });
        }
        continue;
      }
      case 'resend':
        decided('resend');
        return end('resend', userMessage({ kind: 'session_takeover' }), {
          errorKind: 'session_takeover',
          target,
          ...(output.text === '' ? {} : { staleReply: output.text }),
        });
      case 'exhausted': {
        record({ ...attemptRecord, ...errorFields(classification) });
        const waited = await waitOrEnd();
        if (waited !== undefined) return { type: 'end', ending: waited };
        continue;
      }
      case 'final':
        decided('final');
        if (decision.outcome === 'aborted') return abortEnding(turn, runtime, target);
        return end('error', userMessage({ kind: classification.kind }), {
          errorKind: classification.kind,
          target,
        });
    }
  }

  function record(fields: Omit<AttemptRecord, 'attempt' | 'endedAt'>): void {
    progress.attempts.push({
      attempt: progress.attempts.length + 1,
      endedAt: clock.now(),
      ...fields,
    });
  }

  /** Nothing usable now: wait for the shortest cooldown when allowed, else end with it. */
  async function waitOrEnd(): Promise<TurnEnding | undefined> {
    const wait = progress.plan.shortestWait();
    if (wait !== undefined && wait <= settings.maxWaitMs && progress.waits < settings.maxWaits) {
      emit({
        ...base(),
        type: 'decision',
        label: 'wait',
        reason: progress.lastError?.kind ?? 'overloaded',
        delayMs: wait,
      });
      progress.waits += 1;
      await clock.sleep(wait, signal);
      progress.plan.newPass();
      return undefined;
    }
    // Nothing failed in this turn: say why health kept every candidate back.
    const kind = progress.lastError?.kind ?? progress.lastSkip?.kind ?? 'overloaded';
    const last = progress.lastTarget ?? progress.lastSkip?.target;
    const retryAfterMs = progress.plan.shortestRetry();
    emit({ ...base(), type: 'decision', label: 'final', reason: kind });
    return {
      kind: 'error',
      text: userMessage({ kind }),
      errorKind: kind,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...(last === undefined ? {} : { target: last }),
    };
  }

  function end(
    kind: TurnEnding['kind'],
    text: string,
    extra: Partial<TurnEnding> = {},
  ): CallResult {
    return { type: 'end', ending: { kind, text, ...extra } };
  }
}

/**
 * A stopped turn: the caller's stop ends `aborted` quietly, a shutdown `aborted` with the restart
 * notice, the turn's own deadline `error` (`timeout`).
 */
export function abortEnding(
  turn: LiveTurn,
  runtime: TurnRuntime,
  target?: ModelTarget,
): CallResult {
  const copy = runtime.settings.copy;
  const at = target === undefined ? {} : { target };
  if (turn.stopReason === 'deadline')
    return {
      type: 'end',
      ending: { kind: 'error', text: copy.deadlineReached, errorKind: 'timeout', ...at },
    };
  const text =
    turn.stopReason === 'shutdown' ? copy.restartNotice : userMessage({ kind: 'caller_abort' });
  return { type: 'end', ending: { kind: 'aborted', text, errorKind: 'caller_abort', ...at } };
}

/** Kinds that end the turn even when a model switch is waiting. */
const SWITCH_PROOF: ReadonlySet<string> = new Set([
  'session_takeover',
  'caller_abort',
  'coordination',
]);

function switchPending(turn: LiveTurn, progress: TurnProgress): boolean {
  return turn.requestedModel !== undefined && turn.requestedModel !== progress.selection;
}

function errorFields(classification: Classification) {
  return {
    errorKind: classification.kind,
    ...(classification.status === undefined ? {} : { status: classification.status }),
    ...(classification.retryAfterMs === undefined
      ? {}
      : { retryAfterMs: classification.retryAfterMs }),
  };
}

function longestRetryAfter(classification: { retryAfterMs?: number; cooldownMs?: number }) {
  const value = classification.cooldownMs ?? classification.retryAfterMs;
  return value === undefined ? {} : { retryAfterMs: value };
}
