import type {
  BreakerState,
  Clock,
  ErrorKind,
  HealthEvent,
  HealthPermit,
  HealthReport,
  HealthSnapshot,
  ModelTarget,
  ProviderHealth,
} from '@keel/spec';
import { createSystemClock } from './system-clock';

export interface ProviderHealthOptions {
  clock?: Clock;
  /** How long a breaker stays open when the provider gave no `retry-after`; default 10 000 ms. */
  breakerCooldownMs?: number;
  /** The longest breaker cooldown after repeated failed probes (it doubles each time); default 300 000 ms. */
  maxBreakerCooldownMs?: number;
  /** Server errors or connection failures, across sessions, that open a model's breaker; default 5… */
  burstThreshold?: number;
  /** …within this window; default 30 000 ms. */
  burstWindowMs?: number;
  /** How long a rate-limited profile cools for a model when no `retry-after` came; default 30 000 ms. */
  rateLimitCooldownMs?: number;
  /** How long a profile cools after an auth or billing failure; default 900 000 ms. */
  authCooldownMs?: number;
  /** A probe not reported within this time is handed to the next caller; default 60 000 ms. */
  probeTimeoutMs?: number;
}

interface Breaker {
  state: BreakerState;
  openUntil: number;
  failedProbes: number;
  probeUntil: number;
  burst: number[];
}

interface Cooldown {
  providerId: string;
  profileId: string;
  model: string | undefined;
  kind: ErrorKind;
  until: number;
}

/** Kinds that say something about the model's health, not about a profile or the caller. */
const MODEL_FAULTS: ReadonlySet<ErrorKind> = new Set([
  'overloaded',
  'server_error',
  'connection',
  'timeout',
  'provider_abort',
]);
const BURST_KINDS: ReadonlySet<ErrorKind> = new Set([
  'server_error',
  'connection',
  'timeout',
  'provider_abort',
]);

/**
 * In-process provider health, shared by every session of an orchestrator: a breaker per provider
 * and model, cooldowns per profile (and model, for rate limits). A breaker opens when a turn gives
 * up on a model for overload, or on a burst of server errors across sessions; it stays open for
 * the provider's `retry-after` (however long) or a cooldown that doubles with each failed probe;
 * half-open, it lets exactly one probe through and closes when that probe succeeds. A cooldown is
 * only ever extended by a later report, never shortened.
 */
export function createProviderHealth(options: ProviderHealthOptions = {}): ProviderHealth {
  const clock = options.clock ?? createSystemClock();
  const settings = {
    breakerCooldownMs: options.breakerCooldownMs ?? 10_000,
    maxBreakerCooldownMs: options.maxBreakerCooldownMs ?? 300_000,
    burstThreshold: options.burstThreshold ?? 5,
    burstWindowMs: options.burstWindowMs ?? 30_000,
    rateLimitCooldownMs: options.rateLimitCooldownMs ?? 30_000,
    authCooldownMs: options.authCooldownMs ?? 900_000,
    probeTimeoutMs: options.probeTimeoutMs ?? 60_000,
  };
  const breakers = new Map<string, Breaker>();
  const cooldowns = new Map<string, Cooldown>();
  const listeners = new Set<(event: HealthEvent) => void>();

  function emit(event: HealthEvent): void {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch {
        // An observer never breaks health bookkeeping.
      }
    }
  }

  function breakerOf(target: ModelTarget): Breaker {
    const key = `${target.providerId}/${target.model}`;
    let breaker = breakers.get(key);
    if (breaker === undefined) {
      breaker = { state: 'closed', openUntil: 0, failedProbes: 0, probeUntil: 0, burst: [] };
      breakers.set(key, breaker);
    }
    return breaker;
  }

  function move(
    target: ModelTarget,
    breaker: Breaker,
    to: BreakerState,
    reason: Extract<HealthEvent, { type: 'breaker-change' }>['reason'],
  ): void {
    const from = breaker.state;
    breaker.state = to;
    if (from === to && to !== 'open') return;
    emit({
      type: 'breaker-change',
      providerId: target.providerId,
      model: target.model,
      from,
      to,
      ...(to === 'open' ? { until: breaker.openUntil } : {}),
      reason,
    });
  }

  function open(
    target: ModelTarget,
    breaker: Breaker,
    reason: ErrorKind | 'probe-failed',
    retryAfterMs: number | undefined,
  ): void {
    const cooldown =
      retryAfterMs ??
      Math.min(
        settings.maxBreakerCooldownMs,
        settings.breakerCooldownMs * 2 ** breaker.failedProbes,
      );
    breaker.openUntil = Math.max(breaker.openUntil, clock.now() + cooldown);
    breaker.probeUntil = 0;
    breaker.burst = [];
    move(target, breaker, 'open', reason);
  }

  function cool(target: ModelTarget, kind: ErrorKind, model: string | undefined, ms: number): void {
    const key = cooldownKey(target.providerId, target.profileId, model);
    const until = clock.now() + ms;
    const current = cooldowns.get(key);
    if (current !== undefined && current.until >= until) return;
    cooldowns.set(key, {
      providerId: target.providerId,
      profileId: target.profileId,
      model,
      kind,
      until,
    });
    emit({
      type: 'cooldown-start',
      providerId: target.providerId,
      profileId: target.profileId,
      ...(model === undefined ? {} : { model }),
      kind,
      until,
    });
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

  function recordFailure(
    target: ModelTarget,
    kind: ErrorKind,
    probe: boolean,
    retryAfterMs: number | undefined,
  ): void {
    const breaker = breakerOf(target);
    if (probe && breaker.state === 'half-open') {
      if (MODEL_FAULTS.has(kind)) {
        breaker.failedProbes += 1;
        open(target, breaker, 'probe-failed', retryAfterMs);
      } else {
        breaker.probeUntil = 0; // not the model's doing: the next caller probes
      }
    }
    if (kind === 'rate_limit') {
      cool(target, kind, target.model, retryAfterMs ?? settings.rateLimitCooldownMs);
    } else if (kind === 'auth' || kind === 'billing') {
      cool(target, kind, undefined, Math.max(retryAfterMs ?? 0, settings.authCooldownMs));
    } else if (BURST_KINDS.has(kind) && breaker.state === 'closed') {
      const now = clock.now();
      breaker.burst = breaker.burst.filter((at) => now - at < settings.burstWindowMs);
      breaker.burst.push(now);
      if (breaker.burst.length >= settings.burstThreshold)
        open(target, breaker, kind, retryAfterMs);
    }
  }

  return {
    async permit(target) {
      const cooling = coolingWait(target);
      if (cooling > 0) return { allowed: false, reason: 'profile-cooling', waitMs: cooling };
      const breaker = breakerOf(target);
      const now = clock.now();
      if (breaker.state === 'closed') return { allowed: true, probe: false };
      if (breaker.state === 'open') {
        if (now < breaker.openUntil) {
          return { allowed: false, reason: 'breaker-open', waitMs: breaker.openUntil - now };
        }
        move(target, breaker, 'half-open', 'cooldown-elapsed');
      }
      if (breaker.probeUntil > now) {
        return { allowed: false, reason: 'probe-in-flight', waitMs: breaker.probeUntil - now };
      }
      breaker.probeUntil = now + settings.probeTimeoutMs;
      return { allowed: true, probe: true } satisfies HealthPermit;
    },

    async report(report: HealthReport) {
      const breaker = breakerOf(report.target);
      switch (report.type) {
        case 'success':
          breaker.burst = [];
          if (report.probe && breaker.state === 'half-open') {
            breaker.failedProbes = 0;
            breaker.probeUntil = 0;
            move(report.target, breaker, 'closed', 'probe-succeeded');
          }
          return;
        case 'failure':
          recordFailure(report.target, report.kind, report.probe, report.retryAfterMs);
          return;
        case 'overloaded':
          if (breaker.state !== 'open' || clock.now() >= breaker.openUntil) {
            open(report.target, breaker, 'overloaded', report.retryAfterMs);
          } else if (report.retryAfterMs !== undefined) {
            breaker.openUntil = Math.max(breaker.openUntil, clock.now() + report.retryAfterMs);
          }
          return;
        default:
          return assertNever(report);
      }
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

function assertNever(value: never): never {
  throw new TypeError(`Unexpected health report ${JSON.stringify(value)}`);
}
