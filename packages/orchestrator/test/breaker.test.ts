/**
 * Provider health as the turns of every session meet it: breakers that open on evidence across
 * sessions (never on one unlucky request) or on a long retry-after, heal within 30 s through one
 * half-open probe, and hold back a turn without a request.
 */
import { setImmediate as nextTurnOfTheLoop } from 'node:timers/promises';
import type { ProviderHealth } from '@keel/spec';
import { mockFaults } from '@keel/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createProviderHealth } from '../src/index';
import { createHarness, type Harness } from './harness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const primary = { model: 'primary' };
const anthropicPrimary = { providerId: 'anthropic', profileId: 'k1', model: 'primary' };
/** An Anthropic 529 asking the client to come back in two minutes. */
const overloadedFor120s = { ...mockFaults.overloaded(), headers: { 'retry-after': '120' } };

function primaryRequests(): number {
  return harness!.sent().filter((request) => request.model === 'primary').length;
}

function breakerStates(): string[] {
  return harness!.events.flatMap((event) =>
    event.type === 'health' && event.event.type === 'breaker-change'
      ? [`${event.event.to}:${event.event.reason}`]
      : [],
  );
}

describe('provider health shared by every session', () => {
  it('one turn giving up on an overloaded model is not evidence: the next session asks it again', async () => {
    harness = await createHarness({
      script: [1, 2].map(() => ({ behavior: mockFaults.overloaded(), match: primary })),
    });
    const first = await harness.orchestrator.runTurn({ sessionId: 'a', input: 'one' });
    expect(first.model).toBe('backup/fallback');
    expect(primaryRequests()).toBe(2);
    const second = await harness.orchestrator.runTurn({ sessionId: 'b', input: 'two' });
    expect(second).toMatchObject({ kind: 'reply', model: 'anthropic/primary' });
    expect(primaryRequests()).toBe(3);
    expect(breakerStates()).toEqual([]);
  });

  it('failures across sessions open it (3 of 3); others skip it without a request; one probe heals it', async () => {
    harness = await createHarness({
      script: [
        ...[1, 2].map(() => ({ behavior: mockFaults.overloaded(), match: primary })),
        { behavior: mockFaults.serverError(503), match: primary },
      ],
    });
    await harness.orchestrator.runTurn({ sessionId: 'a', input: 'one' });
    // The third failure in the window, the first of this session, opens the breaker.
    const second = await harness.orchestrator.runTurn({ sessionId: 'b', input: 'two' });
    expect(second.model).toBe('backup/fallback');
    expect(primaryRequests()).toBe(3);
    expect(breakerStates()).toEqual(['open:server_error']);

    const third = await harness.orchestrator.runTurn({ sessionId: 'c', input: 'three' });
    expect(third.model).toBe('backup/fallback');
    expect(primaryRequests()).toBe(3);
    expect(third.attempts[0]).toMatchObject({
      outcome: 'skipped',
      requestSent: false,
      target: { model: 'primary' },
    });

    // The 10 s cooldown passes: of two sessions at once, exactly one probes the primary.
    harness.clock.advance(10_000);
    harness.mock.enqueue({
      behavior: { type: 'ok', text: 'probe ok', chunkDelayMs: 20 },
      match: primary,
    });
    const [d, e] = await Promise.all([
      harness.orchestrator.runTurn({ sessionId: 'd', input: 'four' }),
      harness.orchestrator.runTurn({ sessionId: 'e', input: 'five' }),
    ]);
    expect(primaryRequests()).toBe(4);
    expect([d.model, e.model].sort()).toEqual(['anthropic/primary', 'backup/fallback']);
    const probed = [d, e].find((outcome) => outcome.model === 'anthropic/primary')!;
    expect(probed.attempts[0]).toMatchObject({ probe: true, outcome: 'ok' });

    // The probe succeeded: the breaker is closed and every session uses the primary again.
    const sixth = await harness.orchestrator.runTurn({ sessionId: 'f', input: 'six' });
    expect(sixth.model).toBe('anthropic/primary');
    expect(breakerStates()).toEqual([
      'open:server_error',
      'half-open:cooldown-elapsed',
      'closed:probe-succeeded',
    ]);
  });

  it('a retry-after of 120 s opens it at once, and the healed primary gets traffic back after 30 s', async () => {
    harness = await createHarness({ script: [{ behavior: overloadedFor120s, match: primary }] });
    const first = await harness.orchestrator.runTurn({ sessionId: 'a', input: 'one' });
    expect(first.model).toBe('backup/fallback');
    expect(primaryRequests()).toBe(1); // the rotation to k2 was skipped: the breaker is open
    expect(breakerStates()).toEqual(['open:overloaded']);

    harness.clock.advance(29_999);
    const held = await harness.orchestrator.runTurn({ sessionId: 'b', input: 'two' });
    expect(held.model).toBe('backup/fallback');
    expect(primaryRequests()).toBe(1);

    harness.clock.advance(1);
    const healed = await harness.orchestrator.runTurn({ sessionId: 'c', input: 'three' });
    expect(healed).toMatchObject({ kind: 'reply', model: 'anthropic/primary' });
    expect(healed.attempts[0]).toMatchObject({ probe: true, outcome: 'ok' });
    expect(primaryRequests()).toBe(2);
  });

  it('every candidate open: the turn ends at once with the shortest wait, sending nothing', async () => {
    harness = await createHarness({ models: { primary: 'anthropic/primary' } });
    await harness.orchestrator.health.report({
      type: 'failure',
      target: anthropicPrimary,
      kind: 'overloaded',
      probe: false,
      retryAfterMs: 120_000,
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 'a', input: 'one' });
    expect(outcome).toMatchObject({
      kind: 'error',
      errorKind: 'overloaded',
      retryAfterMs: 30_000, // the open time's cap, not the provider's two minutes
    });
    expect(harness.sent()).toEqual([]);
    expect(harness.clock.sleeps).toEqual([]);
  });

  it('a breaker with a few seconds left is waited for within maxWaitMs, then probed', async () => {
    harness = await createHarness({ models: { primary: 'anthropic/primary' } });
    for (let index = 0; index < 3; index += 1) {
      await harness.orchestrator.health.report({
        type: 'failure',
        target: anthropicPrimary,
        kind: 'server_error',
        probe: false,
      });
    }
    harness.clock.advance(7_000);
    const outcome = await harness.orchestrator.runTurn({ sessionId: 'a', input: 'one' });
    expect(outcome.kind).toBe('reply');
    expect(harness.clock.sleeps).toEqual([3_000]);
    expect(harness.decisions()).toEqual(['wait']);
    expect(outcome.attempts.map((attempt) => [attempt.outcome, attempt.probe])).toEqual([
      ['skipped', false],
      ['ok', true],
    ]);
  });

  it('a turn held back only by a cooling profile says rate_limit, naming no model it never tried', async () => {
    harness = await createHarness({
      models: { primary: 'anthropic/primary' },
      providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
    });
    await harness.orchestrator.health.report({
      type: 'failure',
      target: anthropicPrimary,
      kind: 'rate_limit',
      probe: false,
      retryAfterMs: 120_000,
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 'a', input: 'one' });
    expect(outcome).toMatchObject({
      kind: 'error',
      errorKind: 'rate_limit',
      retryAfterMs: 120_000,
    });
    expect(outcome.model).toBeUndefined();
    expect(harness.sent()).toEqual([]);
  });

  it('a health store that answers after a round trip (a shared database): its changes are still the turn’s events', async () => {
    // As the PostgreSQL health does, this one announces a change only after an await.
    const inner = createProviderHealth();
    const remote: ProviderHealth = {
      async permit(target, options) {
        await nextTurnOfTheLoop();
        return inner.permit(target, options);
      },
      async report(report, options) {
        await nextTurnOfTheLoop();
        return inner.report(report, options);
      },
      snapshot: (options) => inner.snapshot(options),
      subscribe: (listener) => inner.subscribe(listener),
    };
    harness = await createHarness({
      script: [{ behavior: overloadedFor120s, match: primary }],
      overrides: { health: remote },
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 'a', input: 'one' });
    expect(outcome.model).toBe('backup/fallback');
    const opened = harness.events.flatMap((event) =>
      event.type === 'health' && event.event.type === 'breaker-change'
        ? [`${event.turnId} ${event.event.model} ${event.event.to}`]
        : [],
    );
    expect(opened).toEqual([`${outcome.turnId} primary open`]);
  });
});
