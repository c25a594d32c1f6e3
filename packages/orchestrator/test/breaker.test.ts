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

describe('provider health shared by every session', () => {
  it('after one session gives up on an overloaded model, another skips it without a request; one half-open probe later', async () => {
    harness = await createHarness({
      script: [1, 2].map(() => ({ behavior: mockFaults.overloaded(), match: primary })),
    });
    const first = await harness.orchestrator.runTurn({ sessionId: 'a', input: 'one' });
    expect(first.model).toBe('backup/fallback');
    const primaryRequests = () =>
      harness!.sent().filter((request) => request.model === 'primary').length;
    expect(primaryRequests()).toBe(2);

    const second = await harness.orchestrator.runTurn({ sessionId: 'b', input: 'two' });
    expect(second.model).toBe('backup/fallback');
    expect(primaryRequests()).toBe(2);
    expect(second.attempts[0]).toMatchObject({
      outcome: 'skipped',
      requestSent: false,
      target: { model: 'primary' },
    });

    // The breaker's cooldown passes: of two sessions at once, exactly one probes the primary.
    harness.clock.advance(10_000);
    harness.mock.enqueue({
      behavior: { type: 'ok', text: 'probe ok', chunkDelayMs: 20 },
      match: primary,
    });
    const [c, d] = await Promise.all([
      harness.orchestrator.runTurn({ sessionId: 'c', input: 'three' }),
      harness.orchestrator.runTurn({ sessionId: 'd', input: 'four' }),
    ]);
    expect(primaryRequests()).toBe(3);
    expect([c.model, d.model].sort()).toEqual(['anthropic/primary', 'backup/fallback']);
    const probed = [c, d].find((outcome) => outcome.model === 'anthropic/primary')!;
    expect(probed.attempts[0]).toMatchObject({ probe: true, outcome: 'ok' });

    // The probe succeeded: the breaker is closed and every session uses the primary again.
    const fifth = await harness.orchestrator.runTurn({ sessionId: 'e', input: 'five' });
    expect(fifth.model).toBe('anthropic/primary');
    const states = harness.events.flatMap((event) =>
      event.type === 'health' && event.event.type === 'breaker-change' ? [event.event.to] : [],
    );
    expect(states).toEqual(['open', 'half-open', 'closed']);
  });

  it('every candidate open: the turn ends at once with the shortest wait, sending nothing', async () => {
    harness = await createHarness({ models: { primary: 'anthropic/primary' } });
    await harness.orchestrator.health.report({
      type: 'overloaded',
      target: { providerId: 'anthropic', profileId: 'k1', model: 'primary' },
      retryAfterMs: 120_000,
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 'a', input: 'one' });
    expect(outcome).toMatchObject({
      kind: 'error',
      errorKind: 'overloaded',
      retryAfterMs: 120_000,
    });
    expect(harness.sent()).toEqual([]);
    expect(harness.clock.sleeps).toEqual([]);
  });

  it('a breaker opening for a few seconds is waited for within maxWaitMs', async () => {
    harness = await createHarness({ models: { primary: 'anthropic/primary' } });
    await harness.orchestrator.health.report({
      type: 'overloaded',
      target: { providerId: 'anthropic', profileId: 'k1', model: 'primary' },
      retryAfterMs: 3_000,
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 'a', input: 'one' });
    expect(outcome.kind).toBe('reply');
    expect(harness.clock.sleeps).toEqual([3_000]);
    expect(harness.decisions()).toEqual(['wait']);
    expect(outcome.attempts.map((attempt) => attempt.outcome)).toEqual(['skipped', 'ok']);
  });

  it('a turn held back only by a cooling profile says rate_limit, naming the model', async () => {
    harness = await createHarness({
      models: { primary: 'anthropic/primary' },
      providers: [{ id: 'anthropic', profiles: [{ id: 'k1' }] }],
    });
    await harness.orchestrator.health.report({
      type: 'failure',
      target: { providerId: 'anthropic', profileId: 'k1', model: 'primary' },
      kind: 'rate_limit',
      probe: false,
      retryAfterMs: 120_000,
    });
    const outcome = await harness.orchestrator.runTurn({ sessionId: 'a', input: 'one' });
    expect(outcome).toMatchObject({
      kind: 'error',
      errorKind: 'rate_limit',
      retryAfterMs: 120_000,
      model: 'anthropic/primary',
      provider: 'anthropic',
    });
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
      script: [1, 2].map(() => ({ behavior: mockFaults.overloaded(), match: primary })),
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
