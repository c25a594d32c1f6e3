import { describe, expect, it } from 'vitest';
import {
  closedBreaker,
  createBreakerStep,
  profileCooldown,
  resolveHealthRules,
} from './health-rules';

const target = { providerId: 'p', profileId: 'k1', model: 'm' };

describe('health rules', () => {
  it('opens on overload, turns half-open when the cooldown passes, and doubles it per failed probe', () => {
    const rules = resolveHealthRules({ breakerCooldownMs: 1_000, maxBreakerCooldownMs: 3_000 });
    const row = closedBreaker();
    createBreakerStep(target, rules, 0).overloaded(row);
    expect(row).toMatchObject({ state: 'open', openUntil: 1_000 });

    const waiting = createBreakerStep(target, rules, 999);
    waiting.expire(row);
    expect(row.state).toBe('open');
    expect(waiting.events).toEqual([]);

    const probe = createBreakerStep(target, rules, 1_000);
    probe.expire(row);
    probe.failure(row, 'overloaded', true);
    expect(row).toMatchObject({ state: 'open', failedProbes: 1, openUntil: 3_000 });
    expect(probe.events.map((event) => `${event.from}>${event.to}:${event.reason}`)).toEqual([
      'open>half-open:cooldown-elapsed',
      'half-open>open:probe-failed',
    ]);

    const again = createBreakerStep(target, rules, 3_000);
    again.expire(row);
    again.failure(row, 'server_error', true);
    expect(row.openUntil).toBe(6_000); // 4 000 capped at 3 000
  });

  it('keeps a cooldown finite after many failed probes, even with a zero base', () => {
    const rules = resolveHealthRules({ breakerCooldownMs: 0 });
    const row = { ...closedBreaker(), state: 'half-open' as const, failedProbes: 5_000 };
    createBreakerStep(target, rules, 10).failure(row, 'timeout', true);
    expect(row.state).toBe('open');
    expect(Number.isFinite(row.openUntil)).toBe(true);
  });

  it('opens on a burst of server errors within the window, not on ones spread out', () => {
    const rules = resolveHealthRules({ burstThreshold: 3, burstWindowMs: 100 });
    const spread = closedBreaker();
    for (const at of [0, 100, 200, 300])
      createBreakerStep(target, rules, at).failure(spread, 'server_error', false);
    expect(spread.state).toBe('closed');
    const burst = closedBreaker();
    for (const at of [0, 10, 20])
      createBreakerStep(target, rules, at).failure(burst, 'connection', false);
    expect(burst.state).toBe('open');
  });

  it('never shortens an open breaker, and a success outside a probe only clears the burst', () => {
    const rules = resolveHealthRules();
    const row = closedBreaker();
    createBreakerStep(target, rules, 0).overloaded(row, 60_000);
    createBreakerStep(target, rules, 1).overloaded(row, 5);
    expect(row.openUntil).toBe(60_000);
    createBreakerStep(target, rules, 2).success(row, false);
    expect(row.state).toBe('open');
  });

  it('cools a profile for the model on a rate limit, for every model on auth or billing', () => {
    const rules = resolveHealthRules({ rateLimitCooldownMs: 7, authCooldownMs: 900 });
    expect(profileCooldown(target, 'rate_limit', undefined, rules)).toEqual({ model: 'm', ms: 7 });
    expect(profileCooldown(target, 'rate_limit', 50, rules)).toEqual({ model: 'm', ms: 50 });
    expect(profileCooldown(target, 'billing', 5, rules)).toEqual({ model: undefined, ms: 900 });
    expect(profileCooldown(target, 'overloaded', 5, rules)).toBeUndefined();
  });
});
