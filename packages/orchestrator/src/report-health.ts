import type { HealthEvent, HealthPermit, HealthReport, ModelTarget } from '@keel/spec';
import type { LiveTurn, TurnRuntime } from './turn-runtime';

/**
 * Calls provider health and re-emits, as this turn's `health` events, the changes the call
 * caused. The store hands them to the call's own `onEvent` (a shared store such as PostgreSQL
 * does so after its round trips, while other turns' calls run), so each change goes to the turn
 * whose call caused it — passed explicitly, without an async context (on Node 20 any
 * `AsyncLocalStorage` puts a hook on every promise of the process).
 */
async function attributed<T>(
  runtime: TurnRuntime,
  turn: LiveTurn,
  call: (onEvent: (event: HealthEvent) => void) => Promise<T>,
): Promise<T> {
  const caused: HealthEvent[] = [];
  try {
    return await call((event) => caused.push(event));
  } finally {
    for (const event of caused) {
      runtime.emitter.emit({
        sessionId: turn.sessionId,
        turnId: turn.turnId,
        at: runtime.clock.now(),
        type: 'health',
        event,
      });
    }
  }
}

/** Reports to provider health; a failing health store never fails the turn (the report is dropped). */
export async function reportHealth(
  runtime: TurnRuntime,
  turn: LiveTurn,
  report: HealthReport,
): Promise<void> {
  await attributed(runtime, turn, (onEvent) => runtime.health.report(report, { onEvent })).catch(
    () => undefined,
  );
}

/** Asks provider health whether a request may go to `target` now. */
export function permitHealth(
  runtime: TurnRuntime,
  turn: LiveTurn,
  target: ModelTarget,
): Promise<HealthPermit> {
  return attributed(runtime, turn, (onEvent) =>
    runtime.health.permit(target, { signal: turn.controller.signal, onEvent }),
  );
}
