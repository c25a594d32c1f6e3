/**
 * The `ProviderHealth` port's rules as one conformance kit, so that the in-process health and the
 * PostgreSQL one are held to the same exact checks instead of two copies that drift apart.
 */
import type { HealthReport } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { callEventChecks } from './health-conformance-call-events';
import { openingChecks } from './health-conformance-opening';
import {
  a1,
  a2,
  type CreateHealth,
  createKitClock,
  go,
  haiku,
  healthSetup,
  type ProviderHealthUnderTestOptions,
} from './health-conformance-support';

export type { ProviderHealthUnderTestOptions } from './health-conformance-support';

/**
 * Registers vitest tests of the `ProviderHealth` port's rules (`@keel/spec`): a breaker per
 * provider and model that opens on evidence across sessions (at least 3 model faults that are at
 * least half of the model's outcomes in a sliding 30 s window, never one request) or on a
 * `retry-after` longer than 10 s; stays open 10 s doubling per failed probe, every open time
 * (`retry-after` included) capped at 30 s; lets exactly one probe through half-open; cooldowns per
 * profile (and model) only ever extended; options checked; a snapshot; events. `create` must give
 * a store with no state, on the kit's clock. The in-process health (`@keel/provider-health`,
 * re-exported by `@keel/orchestrator`) and the PostgreSQL one (`@keel/session-store-postgres`)
 * both pass it.
 */
export function describeProviderHealthConformance(name: string, create: CreateHealth): void {
  const setup = healthSetup(create);

  describe(`ProviderHealth conformance: ${name}`, () => {
    it('lets every target through while nothing went wrong', async () => {
      const { health } = await setup();
      expect(await health.permit(a1)).toEqual(go);
    });

    openingChecks(setup);
    callEventChecks(setup);

    it('half-open lets exactly one probe through; its success closes the breaker afresh', async () => {
      const { health, clock, outcomes, transitions } = await setup();
      await outcomes('FFF');
      clock.advance(10_000);
      expect(await health.permit(a1)).toEqual({ allowed: true, probe: true });
      expect(await health.permit(a2)).toMatchObject({ allowed: false, reason: 'probe-in-flight' });
      await health.report({ type: 'success', target: a1, probe: true });
      expect(await health.permit(a2)).toEqual(go);
      await outcomes('FF');
      expect(await health.permit(a2)).toEqual(go);
      expect(transitions()).toEqual([
        'closed>open:server_error',
        'open>half-open:cooldown-elapsed',
        'half-open>closed:probe-succeeded',
      ]);
    });

    it('a failed probe reopens it for twice as long each time, capped at 30 s', async () => {
      const { health, clock, outcomes, transitions } = await setup();
      await outcomes('FFF');
      const waits: number[] = [];
      for (let round = 0; round < 4; round += 1) {
        const open = await health.permit(a1);
        if (open.allowed) throw new Error('expected the breaker open');
        waits.push(open.waitMs);
        clock.advance(open.waitMs);
        expect(await health.permit(a1)).toEqual({ allowed: true, probe: true });
        await health.report({ type: 'failure', target: a1, kind: 'timeout', probe: true });
      }
      expect(waits).toEqual([10_000, 20_000, 30_000, 30_000]);
      expect((await health.snapshot()).breakers[0]).toMatchObject({
        state: 'open',
        failedProbes: 4,
      });
      expect(transitions().slice(1, 3)).toEqual([
        'open>half-open:cooldown-elapsed',
        'half-open>open:probe-failed',
      ]);
    });

    it('breakerCooldownMs and maxBreakerCooldownMs take effect', async () => {
      const { health, clock, outcomes } = await setup({
        breakerCooldownMs: 4_000,
        maxBreakerCooldownMs: 6_000,
      });
      await outcomes('FFF');
      expect(await health.permit(a1)).toMatchObject({ waitMs: 4_000 });
      clock.advance(4_000);
      expect(await health.permit(a1)).toEqual({ allowed: true, probe: true });
      await health.report({ type: 'failure', target: a1, kind: 'overloaded', probe: true });
      expect(await health.permit(a1)).toMatchObject({ waitMs: 6_000 });
    });

    it('a probe that fails for a reason that is not the model (caller stop, takeover) is handed back', async () => {
      const { health, clock, outcomes } = await setup();
      await outcomes('FFF');
      clock.advance(10_000);
      expect(await health.permit(a1)).toEqual({ allowed: true, probe: true });
      await health.report({ type: 'failure', target: a1, kind: 'caller_abort', probe: true });
      expect(await health.permit(a2)).toEqual({ allowed: true, probe: true });
    });

    it('a probe never reported is handed on after the probe timeout', async () => {
      const { health, clock, outcomes } = await setup({ probeTimeoutMs: 5_000 });
      await outcomes('FFF');
      clock.advance(10_000);
      expect(await health.permit(a1)).toEqual({ allowed: true, probe: true });
      clock.advance(4_999);
      expect(await health.permit(a2)).toMatchObject({ allowed: false, reason: 'probe-in-flight' });
      clock.advance(1);
      expect(await health.permit(a2)).toEqual({ allowed: true, probe: true });
    });

    it('refuses options that cannot work, naming the option', async () => {
      const made = async (options: Omit<ProviderHealthUnderTestOptions, 'clock'>) =>
        create({ clock: createKitClock(), ...options });
      await expect(made({ failureRatio: 1.5 })).rejects.toThrow(/failureRatio/);
      await expect(made({ failureRatio: 0 })).rejects.toThrow(/failureRatio/);
      await expect(made({ windowMs: -1 })).rejects.toThrow(/windowMs/);
      await expect(made({ maxBreakerCooldownMs: -1 })).rejects.toThrow(/maxBreakerCooldownMs/);
      await expect(made({ minFailures: 0 })).rejects.toThrow(/minFailures/);
    });

    it('a rate limit cools that profile for that model only, for retry-after or the default', async () => {
      const { health, clock } = await setup();
      const limited = (retryAfterMs?: number): HealthReport => ({
        type: 'failure',
        target: a1,
        kind: 'rate_limit',
        probe: false,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
      await health.report(limited(2_000));
      expect(await health.permit(a1)).toEqual({
        allowed: false,
        reason: 'profile-cooling',
        waitMs: 2_000,
      });
      expect(await health.permit(a2)).toEqual(go);
      expect(await health.permit(haiku)).toEqual(go);
      clock.advance(2_000);
      expect(await health.permit(a1)).toEqual(go);
      await health.report(limited());
      expect(await health.permit(a1)).toMatchObject({ waitMs: 30_000 });
      const shorter = await setup({ rateLimitCooldownMs: 5_000 });
      await shorter.health.report(limited());
      expect(await shorter.health.permit(a1)).toMatchObject({ waitMs: 5_000 });
    });

    it('auth and billing cool the whole profile, for every model, authCooldownMs at least', async () => {
      const { health } = await setup({ authCooldownMs: 60_000 });
      await health.report({ type: 'failure', target: a1, kind: 'billing', probe: false });
      expect(await health.permit(haiku)).toEqual({
        allowed: false,
        reason: 'profile-cooling',
        waitMs: 60_000,
      });
      expect(await health.permit(a2)).toEqual(go);
    });

    it('a later, shorter cooldown never cuts a longer one short', async () => {
      const { health } = await setup();
      for (const retryAfterMs of [50_000, 1_000]) {
        await health.report({
          type: 'failure',
          target: a1,
          kind: 'rate_limit',
          probe: false,
          retryAfterMs,
        });
      }
      expect(await health.permit(a1)).toMatchObject({ waitMs: 50_000 });
    });

    it('snapshots breakers and live cooldowns, dropping elapsed ones', async () => {
      const { health, clock, outcomes } = await setup();
      await outcomes('FFF');
      await health.report({
        type: 'failure',
        target: a2,
        kind: 'rate_limit',
        probe: false,
        retryAfterMs: 500,
      });
      const snapshot = await health.snapshot();
      expect(snapshot.breakers).toEqual([
        {
          providerId: 'anthropic',
          model: 'sonnet',
          state: 'open',
          openUntil: clock.now() + 10_000,
          failedProbes: 0,
        },
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
      await expect(
        health.report({
          type: 'failure',
          target: a1,
          kind: 'overloaded',
          probe: false,
          retryAfterMs: 60_000,
        }),
      ).resolves.toBeUndefined();
    });
  });
}
