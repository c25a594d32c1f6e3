/**
 * The conformance checks of a call's own changes: `permit` and `report` hand each change they
 * caused to their caller's `onEvent`, even while other calls run, so a turn can tell its own
 * breaker changes and cooldowns from another turn's without any async context.
 */
import type { HealthEvent } from '@keel/spec';
import { expect, it } from 'vitest';
import { a1, a2, type HealthSetup } from './health-conformance-support';

/** Registers the call-events checks (inside the kit's `describe`). */
export function callEventChecks(setup: HealthSetup): void {
  it("a report's onEvent gets the changes it caused, and not those of calls running meanwhile", async () => {
    const { health, events } = await setup();
    const mine: HealthEvent[] = [];
    const theirs: HealthEvent[] = [];
    await Promise.all([
      health.report(
        { type: 'failure', target: a1, kind: 'rate_limit', probe: false, retryAfterMs: 2_000 },
        { onEvent: (event) => mine.push(event) },
      ),
      health.report(
        { type: 'failure', target: a2, kind: 'rate_limit', probe: false, retryAfterMs: 3_000 },
        { onEvent: (event) => theirs.push(event) },
      ),
      health.report({ type: 'success', target: a1, probe: false }, { onEvent: () => undefined }),
    ]);
    expect(mine).toEqual([
      expect.objectContaining({ type: 'cooldown-start', profileId: 'one', kind: 'rate_limit' }),
    ]);
    expect(theirs).toEqual([
      expect.objectContaining({ type: 'cooldown-start', profileId: 'two', kind: 'rate_limit' }),
    ]);
    // The subscribers see every change as before.
    expect(events).toHaveLength(2);
  });

  it("a permit's onEvent gets the breaker it turned half-open; one that changed nothing gets none", async () => {
    const { health, clock, outcomes } = await setup();
    await outcomes('FFF');
    const opening: HealthEvent[] = [];
    await health.report(
      { type: 'failure', target: a1, kind: 'server_error', probe: false },
      { onEvent: (event) => opening.push(event) },
    );
    expect(opening).toEqual([]);
    clock.advance(10_000);
    const probing: HealthEvent[] = [];
    const waiting: HealthEvent[] = [];
    expect(await health.permit(a1, { onEvent: (event) => probing.push(event) })).toEqual({
      allowed: true,
      probe: true,
    });
    await health.permit(a2, { onEvent: (event) => waiting.push(event) });
    expect(probing).toEqual([
      expect.objectContaining({ type: 'breaker-change', from: 'open', to: 'half-open' }),
    ]);
    expect(waiting).toEqual([]);
  });
}
