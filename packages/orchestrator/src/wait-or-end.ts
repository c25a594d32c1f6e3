import { userMessage } from '@keel/error-classification';
import type { TurnEnding, TurnProgress } from './turn-progress';
import type { LiveTurn, TurnRuntime } from './turn-runtime';
import { emitTurnEvent } from './turn-steps';

/**
 * Nothing usable is left in this pass: waits for the shortest cooldown when it is within
 * `retry.maxWaitMs` and waits are left (then `undefined`: try again), else ends the turn at once
 * with `error` and the shortest wait as `retryAfterMs`.
 */
export async function waitOrEnd(
  runtime: TurnRuntime,
  turn: LiveTurn,
  progress: TurnProgress,
): Promise<TurnEnding | undefined> {
  const { settings } = runtime;
  const wait = progress.plan.shortestWait();
  // The attempt that left nothing to try (failed or skipped) is explained by what comes now.
  const last = progress.attempts.at(-1);
  const explain = (label: 'wait' | 'final') => {
    if (last !== undefined && last.outcome !== 'ok' && last.decision === undefined)
      last.decision = label;
  };
  if (wait !== undefined && wait <= settings.maxWaitMs && progress.waits < settings.maxWaits) {
    explain('wait');
    emitTurnEvent(runtime, turn, {
      type: 'decision',
      label: 'wait',
      reason: progress.lastError?.kind ?? progress.lastSkip?.kind ?? 'overloaded',
      delayMs: wait,
    });
    progress.waits += 1;
    await runtime.clock.sleep(wait, turn.controller.signal);
    progress.plan.newPass();
    return undefined;
  }
  // Nothing failed in this turn: say why health kept every candidate back.
  const kind = progress.lastError?.kind ?? progress.lastSkip?.kind ?? 'overloaded';
  // Only a model that was sent a request is named: a skipped one was never tried.
  const tried = progress.lastTarget;
  const retryAfterMs = progress.plan.shortestRetry();
  explain('final');
  emitTurnEvent(runtime, turn, { type: 'decision', label: 'final', reason: kind });
  return {
    kind: 'error',
    text: userMessage({ kind }),
    errorKind: kind,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(tried === undefined ? {} : { target: tried }),
  };
}
