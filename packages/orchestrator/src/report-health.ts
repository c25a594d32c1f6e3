import { AsyncLocalStorage } from 'node:async_hooks';
import type { HealthEvent, HealthPermit, HealthReport, ModelTarget } from '@keel/spec';
import type { LiveTurn, TurnRuntime } from './turn-runtime';

/** The events of the health call running in this async context (see `attributed`). */
const causedBy = new AsyncLocalStorage<HealthEvent[]>();

/**
 * Calls provider health and re-emits, as this turn's `health` events, the changes the call
 * caused (those the health store announces while taking it). A shared store (PostgreSQL)
 * announces them after its round trips, and other turns' calls run meanwhile: an announcement
 * belongs to the call in whose async context the store makes it.
 */
async function attributed<T>(
  runtime: TurnRuntime,
  turn: LiveTurn,
  call: () => Promise<T>,
): Promise<T> {
  const caused: HealthEvent[] = [];
  const unsubscribe = runtime.health.subscribe((event) => {
    if (causedBy.getStore() === caused) caused.push(event);
  });
  try {
    return await causedBy.run(caused, call);
  } finally {
    unsubscribe();
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
  await attributed(runtime, turn, () => runtime.health.report(report)).catch(() => undefined);
}

/** Asks provider health whether a request may go to `target` now. */
export function permitHealth(
  runtime: TurnRuntime,
  turn: LiveTurn,
  target: ModelTarget,
): Promise<HealthPermit> {
  return attributed(runtime, turn, () =>
    runtime.health.permit(target, { signal: turn.controller.signal }),
  );
}
