import { userMessage } from '@keel/error-classification';
import type { ModelTarget } from '@keel/spec';
import type { TurnEnding } from './turn-progress';
import type { LiveTurn, TurnRuntime } from './turn-runtime';

/**
 * A stopped turn: the caller's stop ends `aborted` quietly, a shutdown `aborted` with the restart
 * notice, the turn's own deadline `error` (`timeout`).
 */
export function abortEnding(
  turn: LiveTurn,
  runtime: TurnRuntime,
  target?: ModelTarget,
): TurnEnding {
  const copy = runtime.settings.copy;
  const at = target === undefined ? {} : { target };
  if (turn.stopReason === 'deadline') {
    return { kind: 'error', text: copy.deadlineReached, errorKind: 'timeout', ...at };
  }
  const text =
    turn.stopReason === 'shutdown' ? copy.restartNotice : userMessage({ kind: 'caller_abort' });
  return { kind: 'aborted', text, errorKind: 'caller_abort', ...at };
}
