/**
 * What the provider-health conformance kit's checks share: the options a store under test is made
 * with, the kit's hand-moved clock, the targets, and a fresh store with its events per check.
 */
import type { Clock, HealthEvent, HealthReport, ModelTarget, ProviderHealth } from '@keel/spec';

/**
 * What a health store under test is made with: the kit's clock and the rule options it sets
 * (the names of `@keel/provider-health`'s `HealthRuleOptions`; a store applies its defaults to the
 * rest: a 30 s window, 3 failures, a 0.5 ratio, a 10 s long retry-after, 10 s cooldowns capped at
 * 30 s, a 60 s probe timeout, a 30 s rate-limit cooldown).
 */
export interface ProviderHealthUnderTestOptions {
  /** The kit's fake clock: time moves only when a check moves it. */
  clock: Clock;
  windowMs?: number;
  minFailures?: number;
  failureRatio?: number;
  longRetryAfterMs?: number;
  breakerCooldownMs?: number;
  maxBreakerCooldownMs?: number;
  probeTimeoutMs?: number;
  rateLimitCooldownMs?: number;
  authCooldownMs?: number;
}

/** A clock the kit moves by hand; sleeps return at once (health never sleeps). */
export function createKitClock(
  start = Date.UTC(2026, 10, 30, 12),
): Clock & { advance(ms: number): void } {
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

export const a1: ModelTarget = { providerId: 'anthropic', profileId: 'one', model: 'sonnet' };
export const a2: ModelTarget = { ...a1, profileId: 'two' };
export const haiku: ModelTarget = { ...a1, model: 'haiku' };
/** A permit that lets a request through, not as a probe. */
export const go = { allowed: true, probe: false } as const;

export type CreateHealth = (
  options: ProviderHealthUnderTestOptions,
) => ProviderHealth | Promise<ProviderHealth>;

/** A fresh store on a fresh kit clock, its events, and helpers that report and read them. */
export type HealthSetup = ReturnType<typeof healthSetup>;

export function healthSetup(create: CreateHealth) {
  return async (options: Omit<ProviderHealthUnderTestOptions, 'clock'> = {}) => {
    const clock = createKitClock();
    const health = await create({ clock, ...options });
    const events: HealthEvent[] = [];
    health.subscribe((event) => events.push(event));
    /** Reports outcomes in order: `F` a server error, `S` a success (alternating profiles). */
    const outcomes = async (sequence: string, target = a1) => {
      let index = 0;
      for (const outcome of sequence) {
        const on = index % 2 === 0 ? target : { ...target, profileId: 'two' };
        index += 1;
        const report: HealthReport =
          outcome === 'F'
            ? { type: 'failure', target: on, kind: 'server_error', probe: false }
            : { type: 'success', target: on, probe: false };
        await health.report(report);
      }
    };
    const transitions = () =>
      events.flatMap((event) =>
        event.type === 'breaker-change' ? [`${event.from}>${event.to}:${event.reason}`] : [],
      );
    return { clock, health, events, outcomes, transitions };
  };
}
