import type { AttemptRecord, TurnEvent } from '@keel/spec';
import type { Classification } from './orchestrator-options';
import type { TurnProgress } from './turn-progress';
import type { LiveTurn, TurnRuntime } from './turn-runtime';

/**
 * Emits one of this turn's events (the base fields are filled in). The literal starts with its
 * own fields, not a spread: see CONTRIBUTING.md, "Objects on the hot path".
 */
export function emitTurnEvent(
  runtime: TurnRuntime,
  turn: LiveTurn,
  event: DistributiveOmit<TurnEvent, 'sessionId' | 'turnId' | 'at'>,
): void {
  runtime.emitter.emit({
    sessionId: turn.sessionId,
    turnId: turn.turnId,
    at: runtime.clock.now(),
    ...event,
  } as TurnEvent);
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Appends an attempt to the turn's record, numbered in order and stamped with its end. */
export function recordAttempt(
  runtime: TurnRuntime,
  progress: TurnProgress,
  fields: Omit<AttemptRecord, 'attempt' | 'endedAt'>,
): void {
  progress.attempts.push({
    attempt: progress.attempts.length + 1,
    endedAt: runtime.clock.now(),
    ...fields,
  });
}

/** The error fields of an attempt record. */
export function errorFields(classification: Classification) {
  return {
    errorKind: classification.kind,
    ...(classification.status === undefined ? {} : { status: classification.status }),
    ...(classification.retryAfterMs === undefined
      ? {}
      : { retryAfterMs: classification.retryAfterMs }),
  };
}
