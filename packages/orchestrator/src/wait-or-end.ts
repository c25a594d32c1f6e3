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
  if (wait !== undefined && wait <= settings.maxWaitMs && progress.waits < settings.maxWaits) {
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
  const last = progress.lastTarget ?? progress.lastSkip?.target;
  const retryAfterMs = progress.plan.shortestRetry();
  emitTurnEvent(runtime, turn, { type: 'decision', label: 'final', reason: kind });
  return {
    kind: 'error',
    text: userMessage({ kind }),
    errorKind: kind,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(last === undefined ? {} : { target: last }),
  };
}
