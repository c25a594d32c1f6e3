/**
 * The in-process `ProviderHealth`: the health rules (`health-rules.ts`) applied to rows in memory,
 * the default for one orchestrator and the reference the PostgreSQL health is held to.
 */
import type {
  Clock,
  ErrorKind,
  HealthEvent,
  HealthPermit,
  HealthReport,
  HealthSnapshot,
  ModelTarget,
  ProviderHealth,
} from '@keel/spec';
import {
  applyReport,
  type BreakerRow,
  closedBreaker,
  createBreakerStep,
  type HealthRuleOptions,
  profileCooldown,
  resolveHealthRules,
} from './health-rules';

export interface ProviderHealthOptions extends HealthRuleOptions {
  /** Where time comes from (only `now()` is read); default `Date.now()`. */
  clock?: Pick<Clock, 'now'>;
}

interface Cooldown {
  providerId: string;
  profileId: string;
  model: string | undefined;
  kind: ErrorKind;
  until: number;
}

/**
 * In-process provider health, shared by every session of an orchestrator: a breaker per provider
 * and model, cooldowns per profile (and model, for rate limits). The rules are `health-rules`'s: a
 * breaker opens on evidence across sessions (enough model faults, a large enough share of the
 * model's outcomes in a sliding window) or on a long `retry-after`, never on one request; it stays
 * open for a cooldown doubling per failed probe, capped (30 s by default); half-open, it lets
 * exactly one probe through and closes when that probe succeeds. A cooldown is only ever
 * extended by a later report, never shortened. Options are checked when it is made.
 */
export function createProviderHealth(options: ProviderHealthOptions = {}): ProviderHealth {
  const clock = options.clock ?? { now: () => Date.now() };
  const rules = resolveHealthRules(options);
  const breakers = new Map<string, BreakerRow>();
  const cooldowns = new Map<string, Cooldown>();
  const listeners = new Set<(event: HealthEvent) => void>();

  function emit(events: readonly HealthEvent[], own?: (event: HealthEvent) => void): void {
    for (const event of events) {
      if (own !== undefined) {
        try {
          own(event);
        } catch {
          // The caller's own listener never breaks health bookkeeping either.
        }
      }
      for (const listener of listeners) {
        try {
          listener(event);
        } catch {
          // An observer never breaks health bookkeeping.
        }
      }
    }
  }

  function breakerOf(target: ModelTarget): BreakerRow {
    const key = `${target.providerId}/${target.model}`;
    let breaker = breakers.get(key);
    if (breaker === undefined) {
      breaker = closedBreaker();
      breakers.set(key, breaker);
    }
    return breaker;
  }

  function cool(
    target: ModelTarget,
    kind: ErrorKind,
    retryAfterMs: number | undefined,
    own: ((event: HealthEvent) => void) | undefined,
  ): void {
    const cooldown = profileCooldown(target, kind, retryAfterMs, rules);
    if (cooldown === undefined) return;
    const { model } = cooldown;
    const key = cooldownKey(target.providerId, target.profileId, model);
    const until = clock.now() + cooldown.ms;
    const current = cooldowns.get(key);
    if (current !== undefined && current.until >= until) return;
    cooldowns.set(key, {
      providerId: target.providerId,
      profileId: target.profileId,
      model,
      kind,
      until,
    });
    emit(
      [
        {
          type: 'cooldown-start',
          providerId: target.providerId,
          profileId: target.profileId,
          ...(model === undefined ? {} : { model }),
          kind,
          until,
        },
      ],
      own,
    );
  }

  function coolingWait(target: ModelTarget): number {
    const now = clock.now();
    let wait = 0;
    for (const model of [undefined, target.model]) {
      const key = cooldownKey(target.providerId, target.profileId, model);
      const cooldown = cooldowns.get(key);
      if (cooldown === undefined) continue;
      if (cooldown.until <= now) cooldowns.delete(key);
      else wait = Math.max(wait, cooldown.until - now);
    }
    return wait;
  }

  return {
    async permit(target, callOptions) {
      const cooling = coolingWait(target);
      if (cooling > 0) return { allowed: false, reason: 'profile-cooling', waitMs: cooling };
      const breaker = breakerOf(target);
      const now = clock.now();
      if (breaker.state === 'closed') return { allowed: true, probe: false };
      if (breaker.state === 'open' && now < breaker.openUntil) {
        return { allowed: false, reason: 'breaker-open', waitMs: breaker.openUntil - now };
      }
      const step = createBreakerStep(target, rules, now);
      step.expire(breaker);
      emit(step.events, callOptions?.onEvent);
      if (breaker.probeUntil > now) {
        return { allowed: false, reason: 'probe-in-flight', waitMs: breaker.probeUntil - now };
      }
      breaker.probeUntil = now + rules.probeTimeoutMs;
      return { allowed: true, probe: true } satisfies HealthPermit;
    },

    async report(report: HealthReport, callOptions) {
      const own = callOptions?.onEvent;
      emit(applyReport(breakerOf(report.target), report, rules, clock.now()), own);
      if (report.type === 'failure') cool(report.target, report.kind, report.retryAfterMs, own);
    },

    async snapshot(): Promise<HealthSnapshot> {
      const now = clock.now();
      const snapshot: HealthSnapshot = { breakers: [], cooldowns: [] };
      for (const [key, breaker] of breakers) {
        const slash = key.indexOf('/');
        const open = breaker.state === 'open';
        snapshot.breakers.push({
          providerId: key.slice(0, slash),
          model: key.slice(slash + 1),
          state: open && now >= breaker.openUntil ? 'half-open' : breaker.state,
          ...(open && now < breaker.openUntil ? { openUntil: breaker.openUntil } : {}),
          failedProbes: breaker.failedProbes,
        });
      }
      for (const [key, cooldown] of cooldowns) {
        if (cooldown.until <= now) {
          cooldowns.delete(key);
          continue;
        }
        const { model, ...rest } = cooldown;
        snapshot.cooldowns.push(model === undefined ? rest : { ...rest, model });
      }
      return snapshot;
    },

    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

function cooldownKey(providerId: string, profileId: string, model: string | undefined): string {
  return `${providerId}\u0000${profileId}\u0000${model ?? ''}`;
}
