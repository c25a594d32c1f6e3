import type { Clock, HealthEvent, ModelTarget, ProviderHealth } from '@keel/spec';
import { describe, expect, it } from 'vitest';

/** What a health store under test is made with: the kit's clock and the durations it sets. */
export interface ProviderHealthUnderTestOptions {
  /** The kit's fake clock: time moves only when a check moves it. */
  clock: Clock;
  breakerCooldownMs?: number;
  maxBreakerCooldownMs?: number;
  burstThreshold?: number;
  burstWindowMs?: number;
  probeTimeoutMs?: number;
}

/** A clock the kit moves by hand; sleeps return at once (health never sleeps). */
function createKitClock(start = Date.UTC(2026, 10, 30, 12)): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    async sleep(ms, signal) {
      signal?.throwIfAborted();
      now += Math.max(0, ms);
    },
    advance(ms) {
      now += ms;
    },
  };
}

/**
 * Registers vitest tests of the `ProviderHealth` port's rules (`@keel/spec`): breakers per
 * provider and model that open on a turn's overload give-up or a burst of server errors, stay
 * open for `retry-after` or a cooldown doubling per failed probe, let exactly one probe through
 * half-open; cooldowns per profile (and model) that are only ever extended; a snapshot; events.
 * `create` must give a store with no state, on the kit's clock. The in-process health
 * (`@keel/orchestrator`) and the PostgreSQL one (`@keel/session-store-postgres`) both pass it.
 */
export function describeProviderHealthConformance(
  name: string,
  create: (options: ProviderHealthUnderTestOptions) => ProviderHealth | Promise<ProviderHealth>,
): void {
  const a1: ModelTarget = { providerId: 'anthropic', profileId: 'one', model: 'sonnet' };
  const a2: ModelTarget = { ...a1, profileId: 'two' };
  const haiku: ModelTarget = { ...a1, model: 'haiku' };

  async function setup() {
    const clock = createKitClock();
    const health = await create({ clock, breakerCooldownMs: 10_000 });
    const events: HealthEvent[] = [];
    health.subscribe((event) => events.push(event));
    return { clock, health, events };
  }

  describe(`ProviderHealth conformance: ${name}`, () => {
    it('lets every target through while nothing went wrong', async () => {
      const { health } = await setup();
      expect(await health.permit(a1)).toEqual({ allowed: true, probe: false });
    });

    it('a turn giving up on a model for overload opens its breaker for every profile, not other models', async () => {
      const { health, events } = await setup();
      await health.report({ type: 'overloaded', target: a1 });
      expect(await health.permit(a2)).toEqual({
        allowed: false,
        reason: 'breaker-open',
        waitMs: 10_000,
      });
      expect(await health.permit(haiku)).toEqual({ allowed: true, probe: false });
      expect(events).toMatchObject([
        { type: 'breaker-change', from: 'closed', to: 'open', reason: 'overloaded' },
      ]);
    });

    it('a single overloaded failure report does not open the breaker (the turn may still rotate)', async () => {
      const { health } = await setup();
      await health.report({ type: 'failure', target: a1, kind: 'overloaded', probe: false });
      expect(await health.permit(a2)).toEqual({ allowed: true, probe: false });
    });

    it('honours a retry-after above 60 s for the breaker', async () => {
      const { health, clock } = await setup();
      await health.report({ type: 'overloaded', target: a1, retryAfterMs: 120_000 });
      clock.advance(60_001);
      expect(await health.permit(a1)).toMatchObject({
        allowed: false,
        reason: 'breaker-open',
        waitMs: 59_999,
      });
    });

    it('half-open lets exactly one probe through; its success closes the breaker', async () => {
      const { health, clock, events } = await setup();
      await health.report({ type: 'overloaded', target: a1 });
      clock.advance(10_000);
      expect(await health.permit(a1)).toEqual({ allowed: true, probe: true });
      expect(await health.permit(a2)).toMatchObject({ allowed: false, reason: 'probe-in-flight' });
      await health.report({ type: 'success', target: a1, probe: true });
      expect(await health.permit(a2)).toEqual({ allowed: true, probe: false });
      expect(events.map((event) => event.type === 'breaker-change' && event.to)).toEqual([
        'open',
        'half-open',
        'closed',
      ]);
    });

    it('a failed probe reopens the breaker for twice as long each time, up to the cap', async () => {
      const clock = createKitClock();
      const health = await create({
        clock,
        breakerCooldownMs: 10_000,
        maxBreakerCooldownMs: 30_000,
      });
      await health.report({ type: 'overloaded', target: a1 });
      const waits: number[] = [];
      for (let round = 0; round < 3; round += 1) {
        const open = await health.permit(a1);
        if (open.allowed) throw new Error('expected the breaker open');
        waits.push(open.waitMs);
        clock.advance(open.waitMs);
        expect(await health.permit(a1)).toEqual({ allowed: true, probe: true });
        await health.report({ type: 'failure', target: a1, kind: 'server_error', probe: true });
      }
      expect(waits).toEqual([10_000, 20_000, 30_000]);
      expect((await health.snapshot()).breakers[0]).toMatchObject({
        state: 'open',
        failedProbes: 3,
      });
    });

    it('a probe that fails for a reason that is not the model (caller stop, takeover) is handed back', async () => {
      const { health, clock } = await setup();
      await health.report({ type: 'overloaded', target: a1 });
      clock.advance(10_000);
      expect(await health.permit(a1)).toEqual({ allowed: true, probe: true });
      await health.report({ type: 'failure', target: a1, kind: 'caller_abort', probe: true });
      expect(await health.permit(a2)).toEqual({ allowed: true, probe: true });
    });

    it('a probe never reported is handed on after the probe timeout', async () => {
      const clock = createKitClock();
      const health = await create({ clock, probeTimeoutMs: 5_000 });
      await health.report({ type: 'overloaded', target: a1, retryAfterMs: 1_000 });
      clock.advance(1_000);
      expect(await health.permit(a1)).toEqual({ allowed: true, probe: true });
      clock.advance(4_999);
      expect(await health.permit(a2)).toMatchObject({ allowed: false, reason: 'probe-in-flight' });
      clock.advance(1);
      expect(await health.permit(a2)).toEqual({ allowed: true, probe: true });
    });

    it('a burst of server errors across sessions opens the breaker; fewer, or spread out, do not', async () => {
      const clock = createKitClock();
      const health = await create({ clock, burstThreshold: 3, burstWindowMs: 1_000 });
      const fail = () =>
        health.report({ type: 'failure', target: a1, kind: 'server_error', probe: false });
      await fail();
      await fail();
      clock.advance(1_000);
      await fail();
      expect(await health.permit(a1)).toEqual({ allowed: true, probe: false });
      await health.report({ type: 'failure', target: a2, kind: 'connection', probe: false });
      await fail();
      expect(await health.permit(a1)).toMatchObject({ allowed: false, reason: 'breaker-open' });
    });

    it('a rate limit cools that profile for that model only, for retry-after or the default', async () => {
      const { health, clock } = await setup();
      await health.report({
        type: 'failure',
        target: a1,
        kind: 'rate_limit',
        probe: false,
        retryAfterMs: 2_000,
      });
      expect(await health.permit(a1)).toEqual({
        allowed: false,
        reason: 'profile-cooling',
        waitMs: 2_000,
      });
      expect(await health.permit(a2)).toEqual({ allowed: true, probe: false });
      expect(await health.permit(haiku)).toEqual({ allowed: true, probe: false });
      clock.advance(2_000);
      expect(await health.permit(a1)).toEqual({ allowed: true, probe: false });
      await health.report({ type: 'failure', target: a1, kind: 'rate_limit', probe: false });
      expect(await health.permit(a1)).toMatchObject({ waitMs: 30_000 });
    });

    it('auth and billing cool the whole profile, for every model', async () => {
      const { health } = await setup();
      await health.report({ type: 'failure', target: a1, kind: 'billing', probe: false });
      expect(await health.permit(haiku)).toMatchObject({
        allowed: false,
        reason: 'profile-cooling',
      });
      expect(await health.permit(a2)).toEqual({ allowed: true, probe: false });
    });

    it('a later, shorter cooldown never cuts a longer one short', async () => {
      const { health } = await setup();
      await health.report({
        type: 'failure',
        target: a1,
        kind: 'rate_limit',
        probe: false,
        retryAfterMs: 50_000,
      });
      await health.report({
        type: 'failure',
        target: a1,
        kind: 'rate_limit',
        probe: false,
        retryAfterMs: 1_000,
      });
      expect(await health.permit(a1)).toMatchObject({ waitMs: 50_000 });
    });

    it('snapshots breakers and live cooldowns, dropping elapsed ones', async () => {
      const { health, clock } = await setup();
      await health.report({ type: 'overloaded', target: a1 });
      await health.report({
        type: 'failure',
        target: a2,
        kind: 'rate_limit',
        probe: false,
        retryAfterMs: 500,
      });
      const snapshot = await health.snapshot();
      expect(snapshot.breakers).toEqual([
        expect.objectContaining({
          providerId: 'anthropic',
          model: 'sonnet',
          state: 'open',
          openUntil: clock.now() + 10_000,
        }),
      ]);
      expect(snapshot.cooldowns).toEqual([
        expect.objectContaining({ profileId: 'two', model: 'sonnet', kind: 'rate_limit' }),
      ]);
      clock.advance(600);
      expect((await health.snapshot()).cooldowns).toEqual([]);
    });

    it('a throwing listener never breaks a report', async () => {
      const { health } = await setup();
      health.subscribe(() => {
        throw new Error('observer bug');
      });
      await expect(health.report({ type: 'overloaded', target: a1 })).resolves.toBeUndefined();
    });
  });
}
