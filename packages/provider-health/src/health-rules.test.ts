import type { ErrorKind } from '@keel/spec';
import { describe, expect, it } from 'vitest';
import { HealthConfigError } from './health-config-error';
import {
  applyReport,
  type BreakerRow,
  closedBreaker,
  createBreakerStep,
  type HealthRuleOptions,
  type HealthRules,
  profileCooldown,
  resolveHealthRules,
  touchesBreaker,
  WINDOW_SLICES,
  windowCounts,
} from './health-rules';

const target = { providerId: 'p', profileId: 'k1', model: 'm' };

/** Feeds outcomes (`F` a server error, `S` a success) at `at` ms; returns the row. */
function feed(rules: HealthRules, outcomes: string, at = 0, row = closedBreaker()): BreakerRow {
  for (const outcome of outcomes) {
    const step = createBreakerStep(target, rules, at);
    if (outcome === 'F') step.failure(row, 'server_error', false);
    else step.success(row, false);
  }
  return row;
}

describe('health rules: opening on evidence', () => {
  it('opens at minFailures model faults that are at least failureRatio of the window, never fewer', () => {
    const rules = resolveHealthRules();
    expect(feed(rules, 'FF').state).toBe('closed');
    expect(feed(rules, 'SSFSSFSSFS').state).toBe('closed'); // 3 of 9 when the third came
    expect(feed(rules, 'SFFF')).toMatchObject({ state: 'open', openUntil: 10_000, window: [] });
    expect(feed(rules, 'SFSFSF').state).toBe('open'); // exactly 50 %
  });

  it('minFailures and failureRatio take effect', () => {
    expect(feed(resolveHealthRules({ minFailures: 1 }), 'F').state).toBe('open');
    expect(feed(resolveHealthRules({ minFailures: 4 }), 'FFF').state).toBe('closed');
    expect(feed(resolveHealthRules({ failureRatio: 0.25 }), 'SSSSSSFFF').state).toBe('open');
    expect(feed(resolveHealthRules({ failureRatio: 1 }), 'SFFF').state).toBe('closed');
  });

  it('counts only model faults; other kinds count neither way', () => {
    const rules = resolveHealthRules();
    const counted: ErrorKind[] = ['overloaded', 'server_error', 'connection', 'timeout'];
    const row = closedBreaker();
    for (const kind of counted) createBreakerStep(target, rules, 0).failure(row, kind, false);
    expect(row.state).toBe('open');
    const ignored = closedBreaker();
    const others: ErrorKind[] = [
      'rate_limit',
      'auth',
      'billing',
      'invalid_request',
      'caller_abort',
    ];
    for (const kind of [...others, 'session_takeover' as const, 'unknown' as const]) {
      createBreakerStep(target, rules, 0).failure(ignored, kind, false);
    }
    expect(ignored).toEqual(closedBreaker());
    createBreakerStep(target, rules, 0).failure(ignored, 'provider_abort', false);
    expect(windowCounts(ignored, rules, 0)).toEqual({ failures: 1, successes: 0 });
  });

  it('old outcomes slide out of the window (windowMs takes effect), in slices of a tenth', () => {
    const rules = resolveHealthRules({ windowMs: 1_000 });
    const row = feed(rules, 'FF', 0);
    feed(rules, 'F', 1_000, row);
    expect(row.state).toBe('closed'); // the first two are 1 000 ms old: gone
    const kept = feed(rules, 'FF', 0);
    feed(rules, 'F', 999, kept);
    expect(kept.state).toBe('open');
    // A slice is a tenth: an outcome at 150 ms shares the slice starting at 100, gone at 1 100.
    const sliced = feed(rules, 'FF', 150);
    expect(windowCounts(sliced, rules, 1_099)).toEqual({ failures: 2, successes: 0 });
    expect(windowCounts(sliced, rules, 1_100)).toEqual({ failures: 0, successes: 0 });
  });

  it('keeps at most WINDOW_SLICES slices however many outcomes come', () => {
    const rules = resolveHealthRules({ windowMs: 1_000, minFailures: 1_000_000 });
    const row = closedBreaker();
    for (let at = 0; at < 50_000; at += 7) feed(rules, at % 2 ? 'S' : 'F', at, row);
    expect(row.window.length).toBeLessThanOrEqual(WINDOW_SLICES);
    expect(row.state).toBe('closed');
  });

  it('a long retry-after on an overload or a 5xx opens at once, for it, capped; a short one only counts', () => {
    const rules = resolveHealthRules();
    const long = closedBreaker();
    createBreakerStep(target, rules, 0).failure(long, 'overloaded', false, 15_000);
    expect(long).toMatchObject({ state: 'open', openUntil: 15_000 });
    const capped = closedBreaker();
    createBreakerStep(target, rules, 0).failure(capped, 'server_error', false, 120_000);
    expect(capped.openUntil).toBe(30_000);
    const short = closedBreaker();
    createBreakerStep(target, rules, 0).failure(short, 'overloaded', false, 10_000);
    expect(short.state).toBe('closed');
    const limited = closedBreaker();
    createBreakerStep(target, rules, 0).failure(limited, 'rate_limit', false, 120_000);
    expect(limited.state).toBe('closed');
    const lower = resolveHealthRules({ longRetryAfterMs: 2_000 });
    const opened = closedBreaker();
    createBreakerStep(target, lower, 0).failure(opened, 'overloaded', false, 3_000);
    expect(opened).toMatchObject({ state: 'open', openUntil: 10_000 }); // the cooldown is longer
  });

  it('a turn giving up for overload opens only with a long retry-after', () => {
    const rules = resolveHealthRules();
    const plain = closedBreaker();
    createBreakerStep(target, rules, 0).overloaded(plain);
    createBreakerStep(target, rules, 0).overloaded(plain, 9_000);
    expect(plain).toEqual(closedBreaker());
    const step = createBreakerStep(target, rules, 0);
    step.overloaded(plain, 60_000);
    expect(plain).toMatchObject({ state: 'open', openUntil: 30_000 });
    expect(step.events).toEqual([
      {
        type: 'breaker-change',
        providerId: 'p',
        model: 'm',
        from: 'closed',
        to: 'open',
        until: 30_000,
        reason: 'overloaded',
      },
    ]);
  });
});

describe('health rules: open, half-open, closed', () => {
  it('turns half-open when the cooldown passes; doubles it per failed probe up to the cap', () => {
    const rules = resolveHealthRules({ breakerCooldownMs: 1_000, maxBreakerCooldownMs: 3_000 });
    const row = feed(rules, 'FFF');
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

  it('the default cap is 30 s: doubling and retry-after alike', () => {
    const rules = resolveHealthRules();
    const row = { ...closedBreaker(), state: 'half-open' as const, failedProbes: 3 };
    createBreakerStep(target, rules, 0).failure(row, 'timeout', true, 90_000);
    expect(row).toMatchObject({ state: 'open', failedProbes: 4, openUntil: 30_000 });
  });

  it('keeps a cooldown finite after many failed probes, even with a zero base', () => {
    const rules = resolveHealthRules({ breakerCooldownMs: 0 });
    const row = { ...closedBreaker(), state: 'half-open' as const, failedProbes: 5_000 };
    createBreakerStep(target, rules, 10).failure(row, 'timeout', true);
    expect(row.state).toBe('open');
    expect(Number.isFinite(row.openUntil)).toBe(true);
  });

  it('a probe that succeeds closes the breaker with an empty window; one failing not by the model is handed back', () => {
    const rules = resolveHealthRules();
    const row: BreakerRow = {
      ...closedBreaker(),
      state: 'half-open',
      failedProbes: 2,
      probeUntil: 60_000,
    };
    createBreakerStep(target, rules, 0).failure(row, 'caller_abort', true);
    expect(row).toMatchObject({ state: 'half-open', probeUntil: 0, failedProbes: 2 });
    createBreakerStep(target, rules, 0).success(row, true);
    expect(row).toEqual(closedBreaker());
  });

  it('never shortens an open breaker, and outcomes reported while it is open count for nothing', () => {
    const rules = resolveHealthRules();
    const row = closedBreaker();
    createBreakerStep(target, rules, 0).overloaded(row, 60_000);
    const later = createBreakerStep(target, rules, 5_000);
    later.failure(row, 'server_error', false, 20_000);
    expect(row.openUntil).toBe(30_000);
    expect(later.events).toEqual([]);
    createBreakerStep(target, rules, 6_000).success(row, false);
    createBreakerStep(target, rules, 6_000).failure(row, 'server_error', false);
    expect(row).toMatchObject({ state: 'open', window: [] });
    createBreakerStep(target, rules, 10_000).failure(row, 'overloaded', false, 30_000);
    expect(row.openUntil).toBe(40_000); // extended by a later long retry-after
  });

  it('applyReport dispatches each report; touchesBreaker says which can change a breaker', () => {
    const rules = resolveHealthRules();
    const row = closedBreaker();
    const fail = { type: 'failure', target, kind: 'server_error', probe: false } as const;
    expect(applyReport(row, fail, rules, 0)).toEqual([]);
    expect(applyReport(row, fail, rules, 0)).toEqual([]);
    expect(applyReport(row, fail, rules, 0)).toMatchObject([
      { to: 'open', reason: 'server_error' },
    ]);
    expect(touchesBreaker(fail, rules)).toBe(true);
    expect(touchesBreaker({ type: 'success', target, probe: false }, rules)).toBe(true);
    expect(touchesBreaker({ ...fail, kind: 'rate_limit' }, rules)).toBe(false);
    expect(touchesBreaker({ ...fail, kind: 'rate_limit', probe: true }, rules)).toBe(true);
    expect(touchesBreaker({ type: 'overloaded', target, retryAfterMs: 10_000 }, rules)).toBe(false);
    expect(touchesBreaker({ type: 'overloaded', target, retryAfterMs: 10_001 }, rules)).toBe(true);
  });
});

describe('health rules: options', () => {
  it('has the documented defaults', () => {
    expect(resolveHealthRules()).toEqual({
      windowMs: 30_000,
      minFailures: 3,
      failureRatio: 0.5,
      longRetryAfterMs: 10_000,
      breakerCooldownMs: 10_000,
      maxBreakerCooldownMs: 30_000,
      rateLimitCooldownMs: 30_000,
      authCooldownMs: 900_000,
      probeTimeoutMs: 60_000,
    });
  });

  it.each([
    [{ failureRatio: 0 }, /failureRatio must be a number above 0 and at most 1, not 0/],
    [{ failureRatio: 1.5 }, /failureRatio/],
    [{ failureRatio: Number.NaN }, /failureRatio/],
    [{ minFailures: 0 }, /minFailures must be a whole number from 1, not 0/],
    [{ minFailures: 2.5 }, /minFailures/],
    [{ windowMs: 0 }, /windowMs must be a finite duration above 0 ms, not 0/],
    [{ probeTimeoutMs: 0 }, /probeTimeoutMs/],
    [
      { breakerCooldownMs: -1 },
      /breakerCooldownMs must be a finite duration of 0 ms or more, not -1/,
    ],
    [{ maxBreakerCooldownMs: Number.POSITIVE_INFINITY }, /maxBreakerCooldownMs/],
    [{ longRetryAfterMs: -5 }, /longRetryAfterMs/],
    [{ rateLimitCooldownMs: -1 }, /rateLimitCooldownMs/],
    [{ authCooldownMs: '5' as unknown as number }, /authCooldownMs must be .*, not "5"/],
    [{ burstThreshold: 5 }, /burstThreshold is no longer a health option: .*minFailures/],
    [{ burstWindowMs: 5 }, /burstWindowMs is no longer a health option: .*windowMs/],
  ])('refuses %j, naming the option', (options, message) => {
    const refused = (() => {
      try {
        resolveHealthRules(options as HealthRuleOptions);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(HealthConfigError.isInstance(refused)).toBe(true);
    expect(String(refused)).toMatch(message);
    expect((refused as HealthConfigError).path).toBe(Object.keys(options)[0]);
  });

  it('cools a profile for the model on a rate limit, for every model on auth or billing', () => {
    const rules = resolveHealthRules({ rateLimitCooldownMs: 7, authCooldownMs: 900 });
    expect(profileCooldown(target, 'rate_limit', undefined, rules)).toEqual({ model: 'm', ms: 7 });
    expect(profileCooldown(target, 'rate_limit', 50, rules)).toEqual({ model: 'm', ms: 50 });
    expect(profileCooldown(target, 'billing', 5, rules)).toEqual({ model: undefined, ms: 900 });
    expect(profileCooldown(target, 'auth', 5, rules)).toEqual({ model: undefined, ms: 900 });
    expect(profileCooldown(target, 'auth', 1_200, rules)).toEqual({ model: undefined, ms: 1_200 });
    expect(profileCooldown(target, 'overloaded', 5, rules)).toBeUndefined();
  });
});
