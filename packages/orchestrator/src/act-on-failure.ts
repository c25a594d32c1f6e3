import { userMessage } from '@keel/error-classification';
import type { AttemptRecord, HealthReport } from '@keel/spec';
import { abortEnding } from './abort-ending';
import { moveLabel } from './attempt-plan';
import type { Attempt } from './call-once';
import { decide, toLargerWindow } from './decide';
import type { Classification } from './orchestrator-options';
import { reportHealth } from './report-health';
import { runCompaction } from './run-compaction';
import type { TurnEnding, TurnProgress } from './turn-progress';
import type { LiveTurn, TurnRuntime } from './turn-runtime';
import { emitTurnEvent, errorFields, recordAttempt } from './turn-steps';
import { waitOrEnd } from './wait-or-end';

/** Kinds that end the turn even when a model switch is waiting. */
const SWITCH_PROOF: ReadonlySet<string> = new Set([
  'session_takeover',
  'caller_abort',
  'coordination',
  'storage',
]);

/** Kinds that say nothing about the model: never reported to provider health as its failure. */
const NOT_THE_MODEL: ReadonlySet<string> = new Set(['storage']);

/**
 * After a failed attempt: tells observers and provider health, voids streamed text, then takes
 * the decision its kind calls for and carries it out (a backoff, a rotation, a fallback, a wait, a
 * compaction). Resolves with the turn's ending, or `undefined` to make the next attempt.
 */
export async function actOnFailure(
  runtime: TurnRuntime,
  turn: LiveTurn,
  progress: TurnProgress,
  failed: Attempt & { classification: Classification },
): Promise<TurnEnding | undefined> {
  const { clock, settings } = runtime;
  const { classification, target, attempt } = failed;
  const signal = turn.controller.signal;
  progress.lastError = classification;
  emitTurnEvent(runtime, turn, {
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
  const longest = classification.cooldownMs ?? classification.retryAfterMs;
  if (!NOT_THE_MODEL.has(classification.kind)) {
    await reportHealth(runtime, turn, {
      type: 'failure',
      target,
      kind: classification.kind,
      probe: failed.record.probe,
      ...(longest === undefined ? {} : { retryAfterMs: longest }),
    });
  }
  if (failed.streamedText) {
    emitTurnEvent(runtime, turn, { type: 'discard', attempt, reason: classification.kind });
  }

  // A model the user switched to during this attempt takes precedence over the kind's decision
  // (not over a takeover, a stop or a busy session, which end the turn either way).
  const switchPending =
    turn.requestedModel !== undefined && turn.requestedModel !== progress.selection;
  if (switchPending && !SWITCH_PROOF.has(classification.kind)) {
    recordAttempt(runtime, progress, {
      ...failed.record,
      ...errorFields(classification),
      decision: 'switch_model',
    });
    return undefined;
  }

  const contextWindowOf = (key: string) => settings.modelSettings.get(key)?.contextWindowTokens;
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
    contextWindowOf,
    onOverloadGiveUp(retryAfterMs) {
      giveUps.push({
        type: 'overloaded',
        target,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    },
  });
  for (const report of giveUps) await reportHealth(runtime, turn, report);

  const decided = (label: NonNullable<AttemptRecord['decision']>, extra: object = {}) => {
    const last = progress.attempts.at(-1);
    if (last !== undefined && last.attempt === attempt) last.decision = label;
    else
      recordAttempt(runtime, progress, {
        ...failed.record,
        ...errorFields(classification),
        decision: label,
      });
    emitTurnEvent(runtime, turn, {
      type: 'decision',
      label,
      from: target,
      reason: classification.kind,
      ...extra,
    });
  };

  switch (decision.label) {
    case 'retry_same':
      decided('retry_same', { to: target, delayMs: decision.delayMs });
      await clock.sleep(decision.delayMs, signal);
      return undefined;
    case 'rotate_profile':
    case 'fallback_model': {
      // The label names the move to the target the next attempt really takes.
      const next = progress.plan.next();
      decided(next === undefined ? decision.label : moveLabel(target, next), {
        ...(next === undefined ? {} : { to: next }),
      });
      return undefined;
    }
    case 'wait':
      decided('wait', { delayMs: decision.delayMs });
      progress.waits += 1;
      await clock.sleep(decision.delayMs, signal);
      progress.plan.newPass();
      return undefined;
    case 'compact_and_retry': {
      decided('compact_and_retry', { to: target });
      const result = await runCompaction(runtime, turn, progress, 'overflow');
      if (result.type === 'compacted') return undefined;
      // Compaction cannot bring the request under the window: a larger model, if one is left.
      const larger = toLargerWindow(progress.plan, target, contextWindowOf);
      const next = progress.plan.next();
      if (larger.label === 'fallback_model' && next !== undefined) {
        decided(moveLabel(target, next), { to: next });
        return undefined;
      }
      decided('final');
      return {
        kind: 'error',
        text: settings.copy.compactionFailed,
        errorKind: 'context_overflow',
        target,
      };
    }
    case 'resend':
      decided('resend');
      return {
        kind: 'resend',
        text: userMessage({ kind: 'session_takeover' }),
        errorKind: 'session_takeover',
        target,
        ...(failed.output.text === '' ? {} : { staleReply: failed.output.text }),
      };
    case 'exhausted':
      recordAttempt(runtime, progress, { ...failed.record, ...errorFields(classification) });
      return waitOrEnd(runtime, turn, progress);
    case 'final':
      decided('final');
      if (decision.outcome === 'aborted') return abortEnding(turn, runtime, target);
      return {
        kind: 'error',
        text:
          failed.replyTooLarge === true
            ? settings.copy.replyTooLarge
            : userMessage({ kind: classification.kind }),
        errorKind: classification.kind,
        target,
      };
  }
}
