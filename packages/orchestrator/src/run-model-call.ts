import type { ModelPort, ModelTarget, ToolCall } from '@keel/spec';
import { abortEnding } from './abort-ending';
import { actOnFailure } from './act-on-failure';
import { moveLabel } from './attempt-plan';
import { reserveBudget, settleBudget } from './budget-gate';
import { callOnce } from './call-once';
import { applySwitch } from './live-switch';
import { permitHealth, reportHealth } from './report-health';
import { runCompaction } from './run-compaction';
import type { AttemptProgress } from './stream-attempt';
import type { TurnEnding, TurnProgress } from './turn-progress';
import type { LiveTurn, TurnRuntime } from './turn-runtime';
import { emitTurnEvent, recordAttempt } from './turn-steps';
import { waitOrEnd } from './wait-or-end';

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
 * to get an answer — or the ending when there is none to be had. Each pass of the loop: the
 * request ceiling, a live switch, the next candidate, provider health's permit, the threshold
 * compaction (once), the attempt, and on failure the decision. The fence is held on entry and on
 * return.
 */
export async function runModelCall(
  runtime: TurnRuntime,
  turn: LiveTurn,
  progress: TurnProgress,
): Promise<CallResult> {
  let thresholdChecked = false;
  for (;;) {
    if (turn.controller.signal.aborted) return end(stoppedBetween(runtime, turn, progress));
    if (progress.requests >= runtime.settings.requestCeiling) {
      emitTurnEvent(runtime, turn, { type: 'decision', label: 'final', reason: 'request_ceiling' });
      return end({ kind: 'error', text: runtime.settings.copy.stepCapReached });
    }
    const switched = await applySwitch(runtime, turn, progress);
    if (switched !== undefined) return end(switched);

    const target = progress.plan.next();
    if (target === undefined) {
      const ending = await waitOrEnd(runtime, turn, progress);
      if (ending !== undefined) return end(ending);
      continue;
    }
    const budget = await reserveBudget(runtime, turn, target);
    if (budget.type === 'over') {
      skip(runtime, turn, progress, target, 'profile-cooling', budget.waitMs);
      continue;
    }
    const permit = await permitHealth(runtime, turn, target);
    if (!permit.allowed) {
      await settleBudget(runtime, budget.reservation, { sent: false, usage: undefined });
      skip(runtime, turn, progress, target, permit.reason, permit.waitMs);
      continue;
    }
    if (!thresholdChecked) {
      thresholdChecked = true;
      await runCompaction(runtime, turn, progress, 'threshold');
    }

    const attempt = await callOnce(runtime, turn, progress, target, permit).catch(
      async (error: unknown) => {
        await settleBudget(runtime, budget.reservation, { sent: false, usage: undefined });
        throw error;
      },
    );
    await settleBudget(runtime, budget.reservation, {
      sent: attempt.record.requestSent,
      usage: attempt.output.usage,
    });
    if (budget.unchecked === true && attempt.record.requestSent)
      attempt.record.budget = 'unchecked';
    progress.lastTarget = target;
    if (attempt.classification === undefined) {
      await reportHealth(runtime, turn, { type: 'success', target, probe: permit.probe });
      recordAttempt(runtime, progress, attempt.record);
      const { port, output, toolCalls } = attempt;
      return { type: 'ok', target, port, output, toolCalls };
    }
    let ending: TurnEnding | undefined;
    try {
      ending = await actOnFailure(runtime, turn, progress, {
        ...attempt,
        classification: attempt.classification,
      });
    } catch (error) {
      // A stop during the backoff or wait: the turn ends here.
      if (!turn.controller.signal.aborted) throw error;
      return end(stoppedBetween(runtime, turn, progress));
    }
    if (ending !== undefined) return end(ending);
  }
}

/**
 * Stopped between attempts (the caller left, a shutdown, the deadline): nothing more is sent, and
 * the attempt before says so (`final`), whatever was decided before the stop.
 */
function stoppedBetween(runtime: TurnRuntime, turn: LiveTurn, progress: TurnProgress): TurnEnding {
  const last = progress.attempts.at(-1);
  if (last !== undefined && last.outcome !== 'ok') last.decision = 'final';
  return abortEnding(turn, runtime, progress.lastTarget);
}

function end(ending: TurnEnding): CallResult {
  return { type: 'end', ending };
}

/**
 * Provider health holds the target back: skip it (no request), remember why, and record the
 * decision that explains where the next attempt goes (another profile or model); when nothing
 * is left, the wait or the end that follows explains it.
 */
function skip(
  runtime: TurnRuntime,
  turn: LiveTurn,
  progress: TurnProgress,
  target: ModelTarget,
  reason: 'breaker-open' | 'probe-in-flight' | 'profile-cooling',
  waitMs: number,
): void {
  const startedAt = runtime.clock.now();
  if (reason === 'profile-cooling') progress.plan.blockProfile(target, waitMs);
  else progress.plan.skipModel(target, waitMs);
  const kind = reason === 'profile-cooling' ? 'rate_limit' : 'overloaded';
  progress.lastSkip = { target, kind };
  const next = progress.plan.next();
  const label = next === undefined ? undefined : moveLabel(target, next);
  recordAttempt(runtime, progress, {
    target,
    startedAt,
    requestSent: false,
    probe: false,
    outcome: 'skipped',
    retryAfterMs: waitMs,
    ...(label === undefined ? {} : { decision: label }),
  });
  if (label !== undefined) {
    emitTurnEvent(runtime, turn, { type: 'decision', label, from: target, to: next, reason: kind });
  }
}
