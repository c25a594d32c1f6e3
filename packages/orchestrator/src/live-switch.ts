import type { TurnEnding, TurnProgress } from './turn-progress';
import { planFor } from './turn-progress';
import type { LiveTurn, TurnRuntime } from './turn-runtime';

/**
 * At an attempt boundary: honours a model the user selected while the turn ran, at most
 * `maxModelSwitches` times per turn. Past that the turn ends with a clear message, and the user's
 * last choice is written again as the session's selection (`healed`) so the next turn starts on
 * it with nothing left to switch. A fallback is not a switch and never touches the selection.
 */
export async function applySwitch(
  runtime: TurnRuntime,
  turn: LiveTurn,
  progress: TurnProgress,
): Promise<TurnEnding | undefined> {
  const requested = turn.requestedModel;
  if (requested === undefined) return undefined;
  turn.requestedModel = undefined;
  if (requested === progress.selection) return undefined;
  const { clock, settings, emitter } = runtime;
  const base = { sessionId: turn.sessionId, turnId: turn.turnId, at: clock.now() };
  const from = progress.lastTarget;
  if (progress.switches >= settings.maxModelSwitches) {
    const healed = runtime.entries.modelSelection({
      model: requested,
      source: 'healed',
      turnId: turn.turnId,
    });
    await turn.fence.append([healed], { signal: turn.controller.signal });
    turn.entries.push(healed);
    emitter.emit({
      ...base,
      type: 'decision',
      label: 'final',
      reason: 'switch_limit',
      ...(from === undefined ? {} : { from }),
    });
    return { kind: 'error', text: settings.copy.modelSwitchLimit };
  }
  progress.switches += 1;
  progress.selection = requested;
  // The attempt before the switch is explained by it (whatever was decided before it came).
  const last = progress.attempts.at(-1);
  if (last !== undefined && last.outcome !== 'ok') last.decision = 'switch_model';
  progress.plan = planFor(requested, settings, clock.now);
  const to = progress.plan.next();
  emitter.emit({
    ...base,
    type: 'decision',
    label: 'switch_model',
    reason: 'switch_model',
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
  });
  return undefined;
}
